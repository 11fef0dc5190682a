import { Bool, Enum, Int, List, NInt, NStr, Str } from './openapi-props';

/**
 * The answer of a chain verification, shared by a shoe's stream (`shoe/`) and a table's chain
 * (`chain/`) (docs/openapi.json; the console's types are generated from it). Classes only describe;
 * the services answer plain objects of these shapes. Amounts: strings of integer minor units. Times:
 * ISO-8601 UTC.
 */

/** A problem a chain verification found. */
export class ChainProblem {
  @NStr() streamId!: string | null;
  @NInt() streamVersion!: number | null;
  @NStr() eventId!: string | null;
  @Enum(['HASH_MISMATCH', 'PREV_HASH_MISMATCH', 'VERSION_GAP', 'POSITION_GAP'], 'see docs/guarantees.md §8') kind!: string;
  @Str() detail!: string;
}

/** `GET /shoes/{shoeId}/chain`, `GET /tables/{tableId}/chain`: the hash chain re-verified. */
export class ChainVerification {
  @Bool() ok!: boolean;
  @Int() streamsChecked!: number;
  @Int() eventsChecked!: number;
  @List(() => ChainProblem) problems!: ChainProblem[];
}
