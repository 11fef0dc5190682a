/**
 * How grave a significant event is (docs/significant-events.md), in increasing order. The order is
 * the index in {@link SEVERITIES}: compare with {@link severityAtLeast}, never by the strings.
 */
export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;

/** One severity: `info` < `low` < `medium` < `high` < `critical`. */
export type Severity = (typeof SEVERITIES)[number];

/** The members of `T` from the first one that is `S` on (`T` an ordered tuple). */
type FromOn<T extends readonly unknown[], S> = T extends readonly [infer H, ...infer R] ? (H extends S ? T[number] : FromOn<R, S>) : never;

/** The severities at or above `S`, as a type: `SeverityAtLeast<'high'>` = `'high' | 'critical'`. */
export type SeverityAtLeast<S extends Severity> = FromOn<typeof SEVERITIES, S>;

/**
 * The lowest severity whose events a second person must acknowledge (someone other than whoever
 * caused the event or first acknowledged it): `high`, so `high` and `critical` need two people.
 */
export const SECOND_PERSON_FROM = 'high' as const satisfies Severity;

/**
 * How an event of a kind is acknowledged: `none` (it is logged and shown, nobody has to sign it
 * off) or `second-person` (it stays open until a second person acknowledges it).
 */
export type Acknowledgement = 'none' | 'second-person';

/** The acknowledgement severity `S` requires, as a type (the catalogue's entries are checked against it by the compiler). */
export type AcknowledgementFor<S extends Severity> = S extends SeverityAtLeast<typeof SECOND_PERSON_FROM> ? 'second-person' : 'none';

/** The rank of `s`: 0 for `info` … 4 for `critical`. */
export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

/** Whether `s` is `min` or graver, e.g. `severityAtLeast('critical', 'high')` = true. */
export function severityAtLeast(s: Severity, min: Severity): boolean {
  return severityRank(s) >= severityRank(min);
}

/** Whether `s` is one of {@link SEVERITIES} (for a value read from outside: a query, a record). */
export function isSeverity(s: unknown): s is Severity {
  return typeof s === 'string' && (SEVERITIES as readonly string[]).includes(s);
}

/** The acknowledgement `severity` requires: `second-person` from {@link SECOND_PERSON_FROM} on, `none` below. */
export function acknowledgementFor(severity: Severity): Acknowledgement {
  return severityAtLeast(severity, SECOND_PERSON_FROM) ? 'second-person' : 'none';
}
