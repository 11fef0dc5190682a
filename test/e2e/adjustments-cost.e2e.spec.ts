/**
 * What an early close costs the reconciliation report (docs/reports.md §2): a table's gaming day is
 * closed early, then ~1,000 more rounds of that day are dealt at that table, each of which becomes an
 * adjustment (a change after the close to a round of a closed day). The report sums position-stamped
 * entries (`ledger_entries`), the adjustments included (an index range per closed day and table, a
 * constant number of statements), so its time should not grow with the number of adjustments.
 *
 * PRINTS the `GET /reports/reconciliation` time before the close and after it plus the later rounds
 * (no timed assertion: the machine is shared); asserts only that every later round is adjusted.
 * Rounds: ADJUSTMENT_BENCH_ROUNDS (default 1000). The shoes are synthetic but valid streams
 * (`libs/projections/src/testing/synthetic-shoes.ts`) appended to the event store with the ledger's
 * clock, moved onto one configured table, and go through the real relay and projector.
 */
import { gamingDay } from '@ledger/projections';
import type { Actor, LedgerEvent, NewEvent } from '@ledger/events';
import { request } from 'node:http';
import { AdjustmentsService } from '../../apps/ledger/src/kernel/closes/adjustments.service';
import { AsOfPositionService } from '../../apps/ledger/src/kernel/as-of/as-of-position.service';
import { syntheticLedger } from '../../libs/projections/src/testing/synthetic-shoes';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';
import { waitAsOf } from '../support/shoe-steps';

jest.setTimeout(1_200_000);

const TABLE = 'T-FAB4-01';
const ROUNDS = Number(process.env.ADJUSTMENT_BENCH_ROUNDS ?? 1000);

/** `n` synthetic rounds (whole shoes of ≤ 70 rounds), moved onto {@link TABLE}. */
function shoes(prefix: string, seed: number, rounds: number): LedgerEvent[][] {
  const out: LedgerEvent[][] = [];
  let dealt = 0;
  for (let i = 0; dealt < rounds; i++) {
    const { streams } = syntheticLedger({ shoes: 1, seed: seed + i, betsPerRound: 6, maxRounds: Math.min(70, rounds - dealt), prefix: `${prefix}${i}`, shoeVoidRate: 0 });
    const events = streams[0].map((e) => (e.type === 'ShoeOpened' ? ({ ...e, tableId: TABLE, data: { ...e.data, tableId: TABLE } } as LedgerEvent) : { ...e, tableId: TABLE }));
    dealt += events.filter((e) => e.type === 'RoundOpened').length;
    out.push(events);
  }
  return out;
}

describe('reconciliation report time with ~1,000 adjustments after an early close (printed, not asserted)', () => {
  let h: LedgerHarness;
  const get = (path: string) => h.client.get('auditor', 'aud-1', path);

  beforeAll(async () => {
    h = await startLedger({ env: { GAMING_DAY_CLOSE_SWEEP_MS: '0' } });
    await h.startRelay();
    await h.startProjector();
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Appends each stream (runs of one actor per append, the ledger's clock) and waits until the read model answers as of the last position. */
  async function append(streams: LedgerEvent[][]): Promise<bigint> {
    let last = 0n;
    for (const events of streams) {
      let version = 0;
      for (let i = 0; i < events.length;) {
        const actor: Actor = events[i].actor;
        let j = i;
        while (j < events.length && events[j].actor.id === actor.id && events[j].actor.role === actor.role && j - i < 5000) j++;
        const batch: NewEvent[] = events.slice(i, j).map((e) => ({ eventId: e.eventId, type: e.type, data: e.data }) as NewEvent);
        const res = await h.store.append({ streamId: events[0].streamId, tableId: TABLE, expectedVersion: version, events: batch, metadata: { actor, correlationId: `bench-${events[i].eventId}` } });
        const stored = res.events;
        last = BigInt(stored[stored.length - 1].globalPosition);
        version += batch.length;
        i = j;
      }
    }
    const deadline = Date.now() + 900_000;
    for (;;) {
      try {
        await waitAsOf(h.baseUrl, h.client.token('auditor', 'aud-1'), last);
        return last;
      } catch (e) {
        if (Date.now() > deadline) throw e;
      }
    }
  }

  /** One `GET` with node:http (not the e2e tier's fetch, which also checks the answer against the OpenAPI document): status and body. */
  function rawGet(path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(`${h.baseUrl}${path}`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'aud-1')}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** The median of five timed `GET /reports/reconciliation` (default grouping table, currency; adjustments included), in seconds, request to last byte. */
  async function timeReport(): Promise<{ seconds: number; adjustments: number }> {
    const times: number[] = [];
    let adjustments = 0;
    for (let k = 0; k < 5; k++) {
      const t0 = process.hrtime.bigint();
      const r = await rawGet('/reports/reconciliation');
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
      expect(r.status).toBe(200);
      adjustments = JSON.parse(r.body).adjustments.length;
    }
    times.sort((a, b) => a - b);
    return { seconds: times[2], adjustments };
  }

  it('prints the report time before an early close and after it plus the later rounds; every later round is an adjustment', async () => {
    const prefix = runId('adjb');
    await append(shoes(`${prefix}a`, 7000, 60));
    const day = gamingDay(new Date().toISOString());
    const before = await timeReport();
    // an early close (the day has not ended): a request, and a second pit manager's approval
    const request = await h.client.post<{ requestId: string }>('pit-manager', 'pm-1', `/gaming-days/${day}/close`, { tableIds: [TABLE], early: true, reason: 'adjustments bench' });
    const res = await fetch(`${h.baseUrl}/gaming-days/${day}/close-requests/${request.requestId}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.client.token('pit-manager', 'pm-2')}`, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    const later = shoes(`${prefix}b`, 8000, ROUNDS);
    const t0 = Date.now();
    await append(later);
    const dealtIn = (Date.now() - t0) / 1000;
    const after = await timeReport();
    // the part of it that computes the adjustments (AdjustmentsService.at at the latest position: a constant number of statements)
    const service = h.app.get(AdjustmentsService);
    const position = await h.app.get(AsOfPositionService).latestProjected();
    const adjTimes: number[] = [];
    for (let k = 0; k < 5; k++) {
      const t0 = process.hrtime.bigint();
      await service.at(position);
      adjTimes.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    adjTimes.sort((a, b) => a - b);
    const rounds = later.flat().filter((e) => e.type === 'RoundOpened').length;
    const resulted = later
      .flat()
      .filter((e) => e.type === 'RoundResulted' || e.type === 'RoundVoided')
      .map((e) => (e.data as { roundId: string }).roundId);
    // rounds opened after the close on the closed day: each with a result or void is adjusted (unless the day turned meanwhile)
    const adjusted = new Set((await get('/reports/reconciliation')).adjustments.filter((a: any) => a.closedDay === day).map((a: any) => a.roundId));
    if (gamingDay(new Date().toISOString()) === day) expect(new Set(resulted).size).toBe([...new Set(resulted)].filter((r) => adjusted.has(r)).length);
    console.log(
      [
        `GET /reports/reconciliation before the early close: ${before.seconds.toFixed(3)} s (${before.adjustments} adjustments)`,
        `after the close and ${rounds} later rounds of the closed day (${ROUNDS} asked; appended and projected in ${dealtIn.toFixed(0)} s): ${after.seconds.toFixed(3)} s (${after.adjustments} adjustments; of which AdjustmentsService.at ${adjTimes[2].toFixed(3)} s)`,
      ].join('\n'),
    );
  });
});
