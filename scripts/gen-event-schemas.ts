/**
 * Writes the JSON Schema of the ledger event from the event catalogue (docs/guarantees.md §10):
 * `docs/asyncapi/schemas/ledger-event.v1.schema.json` is `ledgerEventJsonSchema` of `@ledger/events`
 * (the envelope, and the `data` of every type, declared in `libs/events/src/event-schemas.ts` and
 * typed against the catalogue's interfaces), and `docs/asyncapi/asyncapi.yaml` says how many types
 * there are and names them (the ledger message's summary, the ledger channel's "Event types" line).
 *
 *   npx tsx scripts/gen-event-schemas.ts           # rewrites what is out of date
 *   npx tsx scripts/gen-event-schemas.ts --check   # exit 1 when either file is out of date
 *
 * `test/asyncapi/event-schemas.unit.spec.ts` fails while either file is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dataDefinitionName, EVENT_TYPES, ledgerEventJsonSchema } from '@ledger/events';
import { SCHEMA_ID_BASE } from '@ledger/read-model';

const ROOT = resolve(__dirname, '..');
/** The generated schema file. */
export const EVENT_SCHEMA_FILE = join(ROOT, 'docs/asyncapi/schemas/ledger-event.v1.schema.json');
/** The AsyncAPI document whose type count and list are generated. */
export const ASYNCAPI_FILE = join(ROOT, 'docs/asyncapi/asyncapi.yaml');

const SUMMARY = /(summary: A ledger event in its envelope \(all )\d+( types of the catalogue, each with its data schema\)\.)/;
const TYPES_LINE = /^( +)Event types \(\d+, generated from the catalogue by `scripts\/gen-event-schemas\.ts`\):.*$/m;

/** The text of `ledger-event.v1.schema.json` as generated (2-space JSON, final newline). */
export function renderEventSchema(): string {
  return `${JSON.stringify(ledgerEventJsonSchema(`${SCHEMA_ID_BASE}ledger-event.v1.schema.json`), null, 2)}\n`;
}

/**
 * `yaml` (the AsyncAPI document) with the generated type count and type list.
 * @throws Error when the document lacks the summary or the "Event types" line
 */
export function withEventTypes(yaml: string): string {
  if (!SUMMARY.test(yaml) || !TYPES_LINE.test(yaml)) throw new Error(`${ASYNCAPI_FILE}: no ledger message summary or "Event types" line to generate`);
  const list = EVENT_TYPES.map((t) => `\`${t}\``).join(', ');
  return yaml
    .replace(SUMMARY, `$1${EVENT_TYPES.length}$2`)
    .replace(
      TYPES_LINE,
      (_, indent: string) =>
        `${indent}Event types (${EVENT_TYPES.length}, generated from the catalogue by \`scripts/gen-event-schemas.ts\`): ${list}; the \`data\` of type \`T\` is the payload schema's \`#/definitions/${dataDefinitionName('ShoeOpened').replace('ShoeOpened', '<T>')}\`.`,
    );
}

/** Writes (or, with `check`, compares) both files. @returns the files out of date */
export function generate(check: boolean): string[] {
  const stale: string[] = [];
  for (const [file, make] of [
    [EVENT_SCHEMA_FILE, () => renderEventSchema()],
    [ASYNCAPI_FILE, () => withEventTypes(readFileSync(ASYNCAPI_FILE, 'utf8'))],
  ] as const) {
    const before = readFileSync(file, 'utf8');
    const after = make();
    if (after === before) continue;
    stale.push(file);
    if (!check) writeFileSync(file, after);
  }
  return stale;
}

if (require.main === module) {
  const check = process.argv.includes('--check');
  const stale = generate(check);
  for (const f of stale) console[check ? 'error' : 'log'](`${f}: ${check ? 'out of date; run `npx tsx scripts/gen-event-schemas.ts`' : 'written'}`);
  if (stale.length === 0) console.log('ledger event schema and AsyncAPI type list: up to date');
  if (check && stale.length > 0) process.exit(1);
}
