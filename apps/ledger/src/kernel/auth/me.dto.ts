import { Enum, Int, NStrs, One, Str, Time } from '../openapi-props';
import { ROLES } from '../response-enums';

/**
 * The response schema of `GET /me` (docs/openapi.json; the console's types are generated from it).
 * Classes only describe; the services answer plain objects of these shapes. Amounts: strings of
 * integer minor units. Times: ISO-8601 UTC.
 */

/**
 * The response schemas of the read routes, as documented in docs/openapi.json (the console's types
 * are generated from it: `components['schemas']['<Name>']`). Classes only describe; the services
 * answer plain objects of these shapes. Amounts: strings of integer minor units. Times: ISO-8601 UTC.
 */

/** The gaming day's settings (`GAMING_DAY_TZ`, `GAMING_DAY_CUTOFF_HOUR`; docs/domain-rules.md §4). */
export class GamingDaySettings {
  @Str({ description: 'IANA time zone of the gaming day', example: 'Europe/Malta' }) timeZone!: string;
  @Int('local hour 0..23 at which a gaming day starts') cutoffHour!: number;
}

/** `GET /me`: who the bearer token says the caller is, and the gaming day to show times in. */
export class MeResponse {
  @Str('the token subject (actor id)') sub!: string;
  @Enum(ROLES) role!: (typeof ROLES)[number];
  @NStrs('the tables this token may act for; null = every table') tables!: string[] | null;
  @Time('when the token expires') expiresAt!: string;
  @One(() => GamingDaySettings) gamingDay!: GamingDaySettings;
}
