import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { dataDefinitionName, EVENT_TYPES, ledgerEventJsonSchema, type LedgerEventType } from '@ledger/events';

const SCHEMA_ID = 'urn:ledger:event-data';

let validators: ReadonlyMap<string, ValidateFunction> | null = null;

/** Every type's compiled `data` validator, compiled once, at first use (Ajv over {@link ledgerEventJsonSchema}'s definitions). */
function compiled(): ReadonlyMap<string, ValidateFunction> {
  if (validators) return validators;
  const ajv = new Ajv({ allErrors: false, strict: false });
  addFormats(ajv);
  ajv.addSchema(ledgerEventJsonSchema(SCHEMA_ID) as object, SCHEMA_ID);
  const out = new Map<string, ValidateFunction>();
  for (const t of EVENT_TYPES) {
    const v = ajv.getSchema(`${SCHEMA_ID}#/definitions/${dataDefinitionName(t)}`);
    if (!v) throw new Error(`no data schema for ${t}`);
    out.set(t, v);
  }
  return (validators = out);
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
  const v = compiled().get(type as LedgerEventType);
  if (!v) return `${type.slice(0, 80)} is not a ledger event type`;
  if (v(data)) return null;
  const e = v.errors?.[0];
  return `${e?.instancePath || '/'} ${e?.message ?? 'does not match the schema'}`.slice(0, 300);
}
