/**
 * A signed gaming-day close against an insider holding the projector's database login
 * (`ledger_projector`), docs/reports.md §2 "Signed figures come from the verified events": the read
 * model is poisoned between projection and close. Before, the close summed the read model and the
 * ledger signed whatever it said (10^8 added to 208 payout rows was signed as the day's payouts).
 * Now the close sums position-stamped entries that must equal the entries the verified events give,
 * shoe by shoe: a close over a poisoned read model is refused with a code and an incident, and a
 * poisoned table the close does not sum cannot change what it signs. Never a false signed close.
 *
 * Real PostgreSQL and Kafka; the API, relay and projector in-process.
 */
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { generateShoeScript, runShoeScript, type SimTable } from '@ledger/simulator';
import { LedgerHarness, runId, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';
import { waitApplied } from '../support/shoe-steps';

jest.setTimeout(240_000);

const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;
const POISON = 100_000_000n;

describe('a read model poisoned with the projector login never yields a false signed close', () => {
  let h: LedgerHarness;
  let projector: Client; // the projector's own login, as an insider holding it would use it
  let day: string;

  const call = async (method: string, path: string, sub: string, body?: unknown) => {
    const role = sub.startsWith('pm-') ? 'pit-manager' : 'auditor';
    const res = await fetch(`${h.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${h.client.token(role, sub)}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  /** Deals a short shoe on `tableId` through the API and waits until it is projected; returns the shoe id. */
  const dealt = async (tableId: string, seed: string) => {
    const table = tables.find((t) => t.tableId === tableId)!;
    const shoeId = runId('poison');
    await runShoeScript(generateShoeScript(table, seed, { shoeId, dealerId: 'dealer-5', accounts: 4, betChance: 1, maxRounds: 6 }), h.client);
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h.client, stored[stored.length - 1].eventId);
    day = (await call('GET', `/shoes/${shoeId}/rounds/${(stored.find((e) => e.type === 'RoundOpened')!.data as { roundId: string }).roundId}/recall`, 'aud-1')).body.round.gamingDay;
    return shoeId;
  };
  /** Closes today's `tableId` early: a request by pm-1, the approval by pm-2 (the answer of the approval). */
  const closeEarly = async (tableId: string) => {
    const request = await call('POST', `/gaming-days/${day}/close`, 'pm-1', { tableIds: [tableId], early: true, reason: 'poisoned read model spec' });
    expect(request.status).toBe(202);
    return call('POST', `/gaming-days/${day}/close-requests/${request.body.requestId}/approve`, 'pm-2');
  };
  const report = (tableId: string) => call('GET', `/reports/reconciliation?groupBy=table,dealer,currency&tableId=${tableId}&fromDay=${day}&toDay=${day}`, 'aud-1');

  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
    projector = new Client({ connectionString: TEST_SERVICE_DATABASE_URLS.projector });
    await projector.connect();
  });
  afterAll(async () => {
    await projector?.end();
    await h?.close();
  });

  it('payouts raised by 10^8 in the rows the projector may rewrite, then put back after the close: the close signs the events’ figures', async () => {
    const shoeId = await dealt('T-CLASSIC-01', 'poison-a');
    const clean = (await report('T-CLASSIC-01')).body.items;
    expect(clean.length).toBeGreaterThan(0);
    const S = h.readSchema;
    // every table the projector may UPDATE that holds a payout of the day's bets
    const touched: Record<string, number> = {};
    const poison = async (table: string, sql: string) => {
      const r = await projector.query(sql.replaceAll('$S', S), [POISON.toString(), shoeId]);
      touched[table] = r.rowCount ?? 0;
    };
    await poison('bet_settlements', `UPDATE $S.bet_settlements SET payout = payout + $1::numeric WHERE shoe_id = $2`);
    await poison('bet_settlement_revisions', `UPDATE $S.bet_settlement_revisions v SET payout = v.payout + $1::numeric FROM $S.bet_settlements b WHERE b.bet_id = v.bet_id AND b.shoe_id = $2`);
    await poison('reconciliation', `UPDATE $S.reconciliation SET payouts = payouts + $1::numeric WHERE shoe_id = $2`);
    expect(Object.values(touched).every((n) => n > 0)).toBe(true);
    // the entries the close sums: append-only for this login
    await expect(projector.query(`UPDATE ${S}.ledger_entries SET payouts = payouts + 1 WHERE shoe_id = $1`, [shoeId])).rejects.toThrow(/permission denied/);
    await expect(projector.query(`DELETE FROM ${S}.ledger_entries WHERE shoe_id = $1`, [shoeId])).rejects.toThrow(/permission denied/);

    const closed = await closeEarly('T-CLASSIC-01');
    // put back, as the insider would
    await projector.query(`UPDATE ${S}.bet_settlements SET payout = payout - $1::numeric WHERE shoe_id = $2`, [POISON.toString(), shoeId]);
    await projector.query(`UPDATE ${S}.bet_settlement_revisions v SET payout = v.payout - $1::numeric FROM ${S}.bet_settlements b WHERE b.bet_id = v.bet_id AND b.shoe_id = $2`, [POISON.toString(), shoeId]);
    await projector.query(`UPDATE ${S}.reconciliation SET payouts = payouts - $1::numeric WHERE shoe_id = $2`, [POISON.toString(), shoeId]);

    // refused, or signed with the events' own figures — never the poisoned ones
    if (closed.status !== 201) {
      expect([closed.status, closed.body.error.code]).toEqual([500, 'GAMING_DAY.READ_MODEL_DIVERGED']);
      return;
    }
    expect(closed.body.report.rows).toEqual(clean);
    const signed = JSON.parse(closed.body.bytes);
    expect(signed.rows).toEqual(clean);
  });

  it('an entry added with the projector login (a payout of 10^8): the close is refused with a code and an incident, nothing is appended', async () => {
    const shoeId = await dealt('T-TIGER-01', 'poison-b');
    const S = h.readSchema;
    const [entry] = (await projector.query(`SELECT * FROM ${S}.ledger_entries WHERE shoe_id = $1 AND payouts > 0 ORDER BY global_position DESC LIMIT 1`, [shoeId])).rows;
    expect(entry).toBeDefined();
    await projector.query(
      `INSERT INTO ${S}.ledger_entries (global_position, entry_no, event_id, event_type, recorded_at, gaming_day, table_id, shoe_id, round_id, bet_id, dealer_id, currency, payouts, bets_settled)
       VALUES ($1, 99, $2, 'BetSettled', $3, $4, $5, $6, $7, $8, $9, $10, $11::numeric, 0)`,
      [entry.global_position, entry.event_id, entry.recorded_at, entry.gaming_day, entry.table_id, shoeId, entry.round_id, entry.bet_id, entry.dealer_id, entry.currency, POISON.toString()],
    );
    const poisoned = (await report('T-TIGER-01')).body.items;
    expect(poisoned.some((r: { payouts: string }) => BigInt(r.payouts) >= POISON)).toBe(true); // the live report does show it

    const incidentsBefore = Number((await h.ds.query(`SELECT count(*)::int AS n FROM integrity_incidents`))[0].n);
    const eventsBefore = (await h.ds.query(`SELECT count(*)::int AS n FROM events WHERE type = 'GamingDayClosed'`))[0].n;
    const closed = await closeEarly('T-TIGER-01');
    expect([closed.status, closed.body.error?.code]).toEqual([500, 'GAMING_DAY.READ_MODEL_DIVERGED']);
    expect(closed.body.error.details).toMatchObject({ day, tableIds: 'T-TIGER-01', kind: 'ENTRY_MISMATCH', streamId: `shoe-${shoeId}` });
    const incidents = await h.ds.query(`SELECT kind, code, subject, details FROM integrity_incidents ORDER BY id`);
    expect(incidents.length).toBe(incidentsBefore + 1);
    expect(incidents[incidents.length - 1]).toMatchObject({ kind: 'READ_MODEL_DIVERGED', code: 'GAMING_DAY.READ_MODEL_DIVERGED', subject: `gaming-day ${day} T-TIGER-01` });
    expect((await h.ds.query(`SELECT count(*)::int AS n FROM events WHERE type = 'GamingDayClosed'`))[0].n).toBe(eventsBefore);
    // and the incident cannot be taken back by the logins that could poison
    await expect(projector.query(`SELECT count(*) FROM integrity_incidents`)).rejects.toThrow(/permission denied/);
    await expect(h.ds.query(`DELETE FROM integrity_incidents`)).rejects.toThrow(/append-only/);
  });
});
