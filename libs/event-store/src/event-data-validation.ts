import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { EVENT_DATA_SCHEMAS, EVENT_TYPES, SHARED_DEFINITIONS, type LedgerEventType } from '@ledger/events';

const SCHEMA_ID = 'urn:ledger:event-data';

let ajv: Ajv | null = null;
const validators = new Map<string, ValidateFunction>();

/**
 * The compiled `data` validator of `type` (Ajv over its schema of `EVENT_DATA_SCHEMAS`, with the shared
 * definitions), compiled at its first use and kept: a process compiles only the types it meets, a
 * few ms each (the whole generated schema at once took ~360 ms, which every projector and test start
 * would pay). Undefined for a type that is none.
 */
function validatorOf(type: string): ValidateFunction | undefined {
  const known = validators.get(type);
  if (known) return known;
  if (!(EVENT_TYPES as readonly string[]).includes(type)) return undefined;
  if (!ajv) {
    ajv = new Ajv({ allErrors: false, strict: false, validateSchema: false });
    addFormats(ajv);
  }
  // the type's schema alone, with the shared definitions its refs (`#/definitions/…`) name
  const v = ajv.compile({ $id: `${SCHEMA_ID}:${type}`, definitions: SHARED_DEFINITIONS, ...EVENT_DATA_SCHEMAS[type as LedgerEventType] });
  validators.set(type, v);
  return v;
}

/**
 * Why an event's `data` does not match its type's schema (docs/guarantees.md §10: the generated
 * `ledger-event.v1.schema.json`, the current schema version of every type), or null when it does.
 * Readers of the event store and of the topic check the data of an event (once upcast) before they
 * use it: the guarded append function checks the envelope and the chain, not the shape of `data`,
 * so a login that may append could store a raise with `cause: null` (docs/significant-events.md).
 * @param type the event's type (one of `EVENT_TYPES`; any other string is a problem)
 * @param data the event's data, upcast to the current schema version
 * @returns one line naming the first problem (`/cause must be object`), at most 300 characters; null when valid
 */
export function eventDataProblem(type: string, data: unknown): string | null {
  const v = validatorOf(type);
  if (!v) return `${type.slice(0, 80)} is not a ledger event type`;
  if (v(data)) return null;
  const e = v.errors?.[0];
  return `${e?.instancePath || '/'} ${e?.message ?? 'does not match the schema'}`.slice(0, 300);
}
