/**
 * The standalone consumer example (examples/outcome-consumer/consume.mjs, docs/architecture.md §6)
 * run as a child process against the real Kafka broker: the settlement records the projector's
 * builders produce for a synthetic ledger of every game (with voids, corrections and shoe voids)
 * are produced to a private topic, one of them twice; the example's GGR per currency must equal the
 * GGR computed here from the ledger events themselves (the settlement in force of every bet:
 * stake − payout; a refunded bet 0), the duplicate must be skipped and no record found invalid.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { LedgerEvent } from '@ledger/events';
import { analyticsRecordsOfEvents } from '@ledger/read-model';
import { syntheticLedger } from '../../libs/projections/src/testing/synthetic-shoes';
import { createTopic, deleteTopics, testKafka } from '../../libs/projections/src/testing/kafka-kit';
import { TEST_BROKERS } from '../support/ledger-harness';

jest.setTimeout(180_000);

const EXAMPLE = join(__dirname, '../../examples/outcome-consumer/consume.mjs');

/** GGR per currency from the ledger events: the last settlement event of each bet (stake − payout; refund 0). */
function ggrOfEvents(events: readonly LedgerEvent[]): Record<string, string> {
  const last = new Map<string, { currency: string; ggr: bigint }>();
  for (const e of events) {
    const d = e.data as { betId: string; currency: string; stake: string; payout?: string };
    if (e.type === 'BetSettled' || e.type === 'BetResettled') last.set(d.betId, { currency: d.currency, ggr: BigInt(d.stake) - BigInt(d.payout!) });
    if (e.type === 'BetRefunded') last.set(d.betId, { currency: d.currency, ggr: 0n });
  }
  const out = new Map<string, bigint>();
  for (const { currency, ggr } of last.values()) out.set(currency, (out.get(currency) ?? 0n) + ggr);
  return Object.fromEntries([...out.entries()].map(([c, v]) => [c, v.toString()]));
}

describe('examples/outcome-consumer: a standalone consumer of the settlements topic', () => {
  const topic = `schemas-example-${randomUUID()}.settlements`;
  const kafka = testKafka('example-spec');

  afterAll(async () => {
    await deleteTopics(kafka, [topic]);
  });

  it('prints the GGR of the ledger per currency, exact, skipping a duplicated record', async () => {
    const { events } = syntheticLedger({ shoes: 4, seed: 11, prefix: 'exm', voidRate: 0.1, correctionRate: 0.1, exposedCardRate: 0.03, shoeVoidRate: 0.25, maxRounds: 30 });
    const records = (await analyticsRecordsOfEvents(events)).filter((r) => r.kind === 'settlement');
    const statuses = new Set(records.map((r) => (JSON.parse(r.value) as { status: string }).status));
    expect(statuses).toEqual(new Set(['SETTLED', 'RESETTLED', 'REFUNDED']));
    const expected = ggrOfEvents(events);
    expect(Object.keys(expected).length).toBeGreaterThan(0);

    await createTopic(kafka, topic, 3);
    const producer = kafka.producer();
    await producer.connect();
    const message = (r: (typeof records)[number]) => ({ key: r.key, value: r.value, headers: { ...r.headers } });
    // one record duplicated (a republish): same key, value and ce_id, after the original
    const dup = records[Math.floor(records.length / 2)];
    await producer.send(topic, [...records.map(message), message(dup)]);
    await producer.disconnect();

    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [EXAMPLE, '--brokers', TEST_BROKERS.join(','), '--topic', topic, '--schemas-dir', join(__dirname, '../../docs/asyncapi/schemas'), '--idle-ms', '5000'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`))));
    });
    const final = out.split('\n').find((l) => l.startsWith('FINAL '));
    expect(final).toBeDefined();
    const summary = JSON.parse(final!.slice('FINAL '.length)) as { ggr: Record<string, string>; records: number; duplicates: number; invalid: number };
    expect(summary).toEqual({ ggr: expected, records: records.length, duplicates: 1, invalid: 0 });
    expect(out).toContain(`duplicate ce_id ${dup.ceId} skipped`);
  });
});
