/**
 * The clock attestation (docs/architecture.md §9, "Time the ledger vouches for"; 13 Miss. Code R.
 * 8-4.5), through the real API, PostgreSQL, relay and projector: at start the API appends a
 * `ClockAttested` event to the current gaming day's stream — what the machine's time synchronisation
 * reports (this machine may have none: the API starts all the same), its own clock, the database's
 * and their offset — through the one append function (hash-chained, published, applied), and
 * `GET /metrics` shows the time of the last attestation and the offset. The timer's attestations
 * are the same call with reason PERIODIC.
 */
import { hostname } from 'node:os';
import { ClockAttestor, CLOCK_ATTESTOR } from '../../apps/ledger/src/clock/clock-attestor';
import { CloseRecords } from '../../apps/ledger/src/kernel/closes/close-records';
import { NO_TIME_SYNC } from '../../apps/ledger/src/kernel/clock/time-sync';
import { gamingDay } from '@ledger/projections';
import { Client } from 'pg';
import { pgSession, readPublicKeys, verifyLedger } from '@ledger/anchors';
import { LedgerHarness, startLedger, TEST_DATABASE_URL } from '../support/ledger-harness';
import { waitApplied } from '../support/shoe-steps';

jest.setTimeout(180_000);

describe('clock attestation at start and daily', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger({ env: { CLOCK_ATTESTATION_INTERVAL_MS: '86400000' } });
    await h.startRelay();
    await h.startProjector();
  });
  afterAll(async () => {
    await h?.close();
  });

  it("appends ClockAttested at start to the gaming day's stream: the time-sync report, both clocks, their offset; chained, applied, on /metrics", async () => {
    const started = await h.app.get(ClockAttestor).whenStarted();
    expect(started).not.toBeNull();
    const e = started!;
    const day = gamingDay(e.data.ledgerClock, { timeZone: 'UTC', cutoffHour: 6 });
    expect([e.type, e.streamId, e.tableId, e.actor]).toEqual(['ClockAttested', h.app.get(CloseRecords).streamOf(day), '*', CLOCK_ATTESTOR]);
    expect(e.data).toEqual({
      host: hostname(),
      reason: 'START',
      source: expect.any(String),
      synchronised: expect.any(Boolean),
      ledgerClock: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      databaseClock: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      offsetMs: Date.parse(e.data.databaseClock) - Date.parse(e.data.ledgerClock),
    });
    expect(Number.isSafeInteger(e.data.offsetMs)).toBe(true);
    if (!e.data.synchronised) expect(e.data.source === NO_TIME_SYNC || /NTPSynchronized=no|Not synchronised/.test(e.data.source)).toBe(true);
    // recorded like every event: in the stream's hash chain, published and applied by the projector
    const stream = await h.store.readStream(e.streamId);
    expect(stream.map((x) => x.eventId)).toContain(e.eventId);
    await expect(h.store.verifyChain(e.streamId)).resolves.toMatchObject({ ok: true });
    await waitApplied(h.client, e.eventId);
    const audit = await h.client.get('auditor', 'aud-1', `/audit/events?type=ClockAttested`);
    expect(audit.items.map((x: any) => [x.eventId, x.tableId, x.shoeId])).toEqual([[e.eventId, '*', null]]);

    // and verified like every event: npm run -s verify's check of the database finds nothing in its stream
    const owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
    try {
      const report = await verifyLedger({
        session: pgSession(owner),
        publicKeys: readPublicKeys(['.stack/anchors/anchor-public.pem']),
        anchorFile: null,
        kafka: null,
        anchorsTopic: null,
        eventsTopic: null,
        maxDivergences: 100_000,
      });
      expect(report.eventsChecked).toBeGreaterThan(0);
      expect(report.divergences.filter((d) => d.streamId === e.streamId || d.eventId === e.eventId)).toEqual([]);
    } finally {
      await owner.end();
    }

    const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(text).toContain(`ledger_clock_last_attested_timestamp_seconds ${Date.parse(e.data.ledgerClock) / 1000}`);
    expect(text).toContain(`ledger_clock_database_offset_seconds ${e.data.offsetMs / 1000}`);
  });

  it("a periodic attestation follows in the same stream, with what the machine's time-sync service reports", async () => {
    const chrony = 'Reference ID    : C0A80101 (192.168.1.1)\nSystem time     : 0.000012345 seconds fast of NTP time\nLeap status     : Normal\n';
    const probes = { run: async (file: string) => (file === 'chronyc' ? chrony : null), exists: async () => false };
    const first = (await h.app.get(ClockAttestor).whenStarted())!;
    const e = await h.app.get(ClockAttestor).attest('PERIODIC', probes);
    expect(e.data).toMatchObject({ reason: 'PERIODIC', source: 'chrony: reference C0A80101 (192.168.1.1); leap status Normal; system time 0.000012345 seconds fast of NTP time', synchronised: true });
    expect([e.streamId, e.prevHash]).toEqual([first.streamId, (await h.store.readStream(first.streamId)).find((x) => x.streamVersion === e.streamVersion - 1)!.hash]);
  });
});
