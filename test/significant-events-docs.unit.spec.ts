import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIGNIFICANT_EVENTS_END, SIGNIFICANT_EVENTS_START, SIGNIFICANT_EVENT_CODES, spliceSignificantEvents } from '@ledger/significant-events';

/** The catalogue of docs/significant-events.md is generated from `SIGNIFICANT_EVENTS` (`@ledger/significant-events`). */
describe('the catalogue of docs/significant-events.md', () => {
  const doc = readFileSync(join(__dirname, '..', 'docs', 'significant-events.md'), 'utf8');

  it('is up to date with SIGNIFICANT_EVENTS (else run `npx tsx scripts/gen-significant-event-docs.ts`)', () => {
    expect(doc).toContain(SIGNIFICANT_EVENTS_START);
    expect(doc).toContain(SIGNIFICANT_EVENTS_END);
    expect(spliceSignificantEvents(doc) === doc ? 'up to date' : 'out of date: run `npx tsx scripts/gen-significant-event-docs.ts`').toBe('up to date');
  });

  it('lists every kind', () => {
    const block = doc.slice(doc.indexOf(SIGNIFICANT_EVENTS_START), doc.indexOf(SIGNIFICANT_EVENTS_END));
    for (const code of SIGNIFICANT_EVENT_CODES) expect(block).toContain(`| \`${code}\` |`);
  });

  it('fails on a document whose catalogue is stale (a deliberately broken fixture)', () => {
    const stale = doc.replace('| `ROUND.VOIDED` | medium |', '| `ROUND.VOIDED` | low |');
    expect(stale).not.toBe(doc);
    expect(spliceSignificantEvents(stale)).not.toBe(stale);
  });
});
