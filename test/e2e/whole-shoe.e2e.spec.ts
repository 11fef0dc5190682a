/**
 * A whole 8-deck shoe (docs/guarantees.md §4, §5, §8) of one table dealt through the HTTP API yields on the
 * Kafka topic exactly the events of the PostgreSQL store, in the same order for that table, with
 * an intact hash chain. Real PostgreSQL, real Kafka, the real outbox relay.
 */
import { generateShoeScript, runShoeScript, SimTable } from '@ledger/simulator';
import { readFileSync } from 'node:fs';
import { readTopic } from '../support/kafka-reader';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(240_000);

const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;

describe('a whole 8-deck shoe through the HTTP API', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('puts on Kafka exactly the events of the store, in stream order, with an intact hash chain', async () => {
    const table = tables.find((t) => t.tableId === 'T-CLASSIC-01')!;
    const shoeId = runId('e2e-shoe');
    const script = generateShoeScript(table, `e2e-seed-${shoeId}`, { shoeId, dealerId: 'dealer-7', accounts: 6, betChance: 0.6 });
    const stats = await runShoeScript(script, h.client);
    const streamId = `shoe-${shoeId}`;

    const stored = await h.store.readStream(streamId);
    expect(stored.length).toBe(stats.events);
    expect(stored.map((e) => e.streamVersion)).toEqual(stored.map((_, i) => i + 1));
    expect(stored.filter((e) => e.type === 'RoundResulted').length).toBe(stats.rounds);
    expect(stored.filter((e) => e.type === 'BetSettled').length).toBe(stats.bets);
    expect(stored[stored.length - 1].type).toBe('ShoeClosed');
    // card accounting: every card of the 416 either left the shoe in an event or is still in it
    const closed = stored[stored.length - 1].data as { cardsRemaining: number };
    const out = stored.filter((e) => ['CommencementCardDrawn', 'CardBurned', 'CardDealt', 'UnneededCardDrawn'].includes(e.type)).length;
    expect(out + closed.cardsRemaining).toBe(416);

    await h.startRelay();
    const records = await readTopic(h.kafka, h.topic, (rs) => rs.filter((r) => r.value.streamId === streamId).length >= stored.length);
    const mine = records.filter((r) => r.value.streamId === streamId);
    expect(new Set(mine.map((r) => r.partition)).size).toBe(1);
    expect(mine.every((r) => r.key === table.tableId)).toBe(true);
    expect(mine.map((r) => r.value.eventId)).toEqual(stored.map((e) => e.eventId));
    for (let i = 0; i < stored.length; i++) {
      const { globalPosition, hash, prevHash, type, data, streamVersion } = stored[i];
      expect(mine[i].value).toMatchObject({ globalPosition, hash, prevHash, type, streamVersion });
      expect(mine[i].value.data).toEqual(data);
      expect(mine[i].headers.ce_id).toBe(stored[i].eventId);
    }
    const chain = await h.store.verifyChain(streamId);
    expect(chain.ok).toBe(true);
    expect(chain.eventsChecked).toBe(stored.length);
  });
});
