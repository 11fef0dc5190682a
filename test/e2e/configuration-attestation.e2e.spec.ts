/**
 * The configuration at start and the dealer changed mid-shoe as significant events
 * (docs/significant-events.md, "Configuration at start"), through the real API, PostgreSQL, Kafka,
 * relay and projector: the API started three times on the same ledger — then with a tables file
 * whose limits and paytable differ and another report signing key, then again identically. Each
 * start appends a `ConfigurationAttested`; the monitor raises `CONFIG.TABLES_CHANGED`,
 * `CONFIG.PAYTABLES_CHANGED` and `CONFIG.KEYS_ROTATED` for the second, each saying what changed,
 * and nothing for the identical third; a fourth with lowered significant-event settings raises
 * `CONFIG.SIGNIFICANT_SETTINGS_CHANGED`. A dealer change before a shoe's first round raises nothing;
 * one after it raises `DEALER.CHANGED_MID_SHOE`. `npm run -s verify` passes the genuine raises and
 * reports a raise forged around the monitor for either condition; once the grace period is over, its
 * completeness finds every raise the real monitor owed these causes (no false alarm).
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { pgSession, significantEventIdOf, verifyLedger } from '@ledger/anchors';
import type { LedgerEvent } from '@ledger/events';
import { ConfigurationAttestor } from '../../apps/ledger/src/clock/configuration-attestor';
import { SignificantEventMonitor } from '../../apps/ledger/src/significant-events/significant-monitor';
import { LedgerHarness, runId, startLedger, TEST_DATABASE_URL } from '../support/ledger-harness';

jest.setTimeout(240_000);

const TABLE = 'T-CLASSIC-01';
const dir = mkdtempSync(join(tmpdir(), 'ledger-config-'));
const tables = JSON.parse(readFileSync(resolve(__dirname, '../../config/tables.json'), 'utf8')) as { tables: any[] };
const changed = structuredClone(tables);
const classic = changed.tables.find((t: any) => t.tableId === TABLE);
classic.limits.PLAYER.max = '900000';
classic.paytableRef = 'classic-no-commission@1';
writeFileSync(join(dir, 'tables.json'), JSON.stringify(tables));
writeFileSync(join(dir, 'tables-changed.json'), JSON.stringify(changed));
writeFileSync(join(dir, 'report-key.pem'), generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);

describe('configuration at start and dealer changes mid-shoe, raised as significant events', () => {
  const group = `conf-monitor-${randomUUID()}`;
  const env = (over: Record<string, string> = {}) => ({ SIGNIFICANT_MONITOR: 'true', SIGNIFICANT_MONITOR_GROUP: group, CONFIGURATION_ATTESTATION: 'true', TABLES_FILE: join(dir, 'tables.json'), ...over });
  let h: LedgerHarness;
  /** Starts the API (with its relay and projector) and answers its start attestation. */
  const start = async (over: Record<string, string> = {}): Promise<LedgerEvent<'ConfigurationAttested'>> => {
    await h?.close();
    h = await startLedger({ env: env(over) });
    await h.startRelay();
    await h.startProjector();
    const e = await h.app.get(ConfigurationAttestor).whenStarted();
    expect(e).not.toBeNull();
    return e!;
  };
  /** The raises of `code` the route lists for cause `causeEventId` (polls until one is listed). */
  const listed = async (code: string, causeEventId: string): Promise<any> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const page = await h.client.get('auditor', 'aud-1', `/significant-events?code=${code}&limit=50`);
      const item = page.items.find((i: any) => i.causeEventId === causeEventId);
      if (item) return item;
      if (Date.now() > deadline) throw new Error(`${code} caused by ${causeEventId} not listed within 60 s`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };
  /** The raises stored for `cause`, after the monitor handled it once more (it appends none it had not). */
  const raisesOf = async (cause: LedgerEvent): Promise<string[]> => {
    const again = await h.app.get(SignificantEventMonitor).handle([{ offset: '0', key: null, value: Buffer.from(JSON.stringify(cause)), timestamp: '0' }]);
    const rows: { code: string }[] = await h.ds.query(`SELECT data ->> 'code' AS code FROM events WHERE type = 'SignificantEventRaised' AND data -> 'cause' ->> 'eventId' = $1`, [cause.eventId]);
    return [...rows.map((r) => r.code), ...(again > 0 ? [`${again} appended late`] : [])];
  };
  /** Verify's report (at `now`: its grace period measured from it). */
  const verifyAt = async (now?: Date) => {
    const owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
    try {
      return await verifyLedger({
        session: pgSession(owner),
        publicKeys: new Map(),
        anchorFile: null,
        kafka: null,
        anchorsTopic: null,
        eventsTopic: null,
        maxDivergences: 100_000,
        now: now ? () => now : undefined,
        dayRule: { timeZone: 'UTC', cutoffHour: 6 },
      });
    } finally {
      await owner.end();
    }
  };
  const significantDivergences = async () => (await verifyAt()).divergences.filter((d) => d.source === 'significant-events');
  /** Appends, around the monitor, a raise of `code` caused by `cause`, shaped as the monitor's. */
  const forge = async (cause: LedgerEvent, code: string, severity: string, details: Record<string, string>) => {
    const id = significantEventIdOf(cause.eventId, code);
    const data = {
      significantEventId: id,
      code,
      severity,
      cause: { eventId: cause.eventId, globalPosition: cause.globalPosition, streamId: cause.streamId, eventType: cause.type },
      ...(cause.tableId !== '*' ? { tableId: cause.tableId } : {}),
      actor: cause.actor.id,
      details,
    };
    await h.store.append({
      streamId: `significant-${id}`,
      tableId: cause.tableId,
      expectedVersion: 0,
      events: [{ eventId: id, type: 'SignificantEventRaised', data }],
      metadata: { actor: { id: 'significant-event-monitor', role: 'system' }, correlationId: cause.correlationId, causationId: cause.eventId },
    });
    return `significant-${id}`;
  };

  let first: LedgerEvent<'ConfigurationAttested'>;
  let second: LedgerEvent<'ConfigurationAttested'>;
  let third: LedgerEvent<'ConfigurationAttested'>;
  let earlyChange: LedgerEvent;
  /** The causes of this run the monitor raised: verify's completeness must find each raise. */
  const causes: LedgerEvent[] = [];
  const mine = new Set<string>();

  afterAll(async () => {
    await h?.close();
  });

  it('a restart with other limits, another paytable and another report key raises each CONFIG kind, saying what changed; an identical restart raises nothing', async () => {
    first = await start();
    expect([first.type, first.tableId, first.actor]).toEqual(['ConfigurationAttested', '*', { id: 'configuration-attestor', role: 'system' }]);
    expect(first.data.tables.find((t) => t.tableId === TABLE)).toMatchObject({ variant: 'classic', decks: 8, currency: 'EUR', paytableRef: 'classic-standard@1' });
    expect(first.data.keys.tokens).toEqual([expect.stringMatching(/^hs256:[0-9a-f]{16}$/)]);

    second = await start({ TABLES_FILE: join(dir, 'tables-changed.json'), REPORT_SIGNING_KEY_FILE: join(dir, 'report-key.pem') });
    const tablesChanged = await listed('CONFIG.TABLES_CHANGED', second.eventId);
    const paytables = await listed('CONFIG.PAYTABLES_CHANGED', second.eventId);
    const keys = await listed('CONFIG.KEYS_ROTATED', second.eventId);
    for (const i of [tablesChanged, paytables, keys]) mine.add(`significant-${i.significantEventId}`);
    expect(tablesChanged).toMatchObject({ severity: 'medium', tableId: null, causeEventType: 'ConfigurationAttested', actorId: 'configuration-attestor', requiresAck: false });
    expect(tablesChanged.details).toEqual({ changes: `${TABLE} limits changed`, previousAttestation: first.eventId });
    expect(paytables).toMatchObject({ severity: 'high', requiresAck: true });
    expect(paytables.details).toEqual({ changes: `${TABLE} paytable classic-standard@1 → classic-no-commission@1`, previousAttestation: first.eventId });
    expect(keys).toMatchObject({ severity: 'high', requiresAck: true });
    expect(keys.details.changes).toBe(`reports signing key ${first.data.keys.reports ?? 'none'} → ${second.data.keys.reports}`);
    expect(await raisesOf(second)).toEqual(expect.arrayContaining(['CONFIG.TABLES_CHANGED', 'CONFIG.PAYTABLES_CHANGED', 'CONFIG.KEYS_ROTATED']));

    third = await start({ TABLES_FILE: join(dir, 'tables-changed.json'), REPORT_SIGNING_KEY_FILE: join(dir, 'report-key.pem') });
    expect({ ...third.data, host: second.data.host }).toEqual(second.data);
    expect(await raisesOf(third)).toEqual([]);
  });

  it('a restart with a lower large-win amount and another fairness confidence raises CONFIG.SIGNIFICANT_SETTINGS_CHANGED (high), saying what changed', async () => {
    const same = { TABLES_FILE: join(dir, 'tables-changed.json'), REPORT_SIGNING_KEY_FILE: join(dir, 'report-key.pem') };
    expect(third.data.significant).toEqual({ monitor: true, winMultiple: '100/1', winAmountMinor: '1000000', clockSkewBoundMs: 5000, fairnessConfidence: '95/100', floodWindowSeconds: 60 });
    const lowered = await start({ ...same, SIGNIFICANT_WIN_AMOUNT_MINOR: '1', FAIRNESS_ALERT_CONFIDENCE: '9999/10000' });
    expect(lowered.data.significant).toMatchObject({ winAmountMinor: '1', fairnessConfidence: '9999/10000' });
    const changed = await listed('CONFIG.SIGNIFICANT_SETTINGS_CHANGED', lowered.eventId);
    mine.add(`significant-${changed.significantEventId}`);
    expect(changed).toMatchObject({ severity: 'high', requiresAck: true, causeEventType: 'ConfigurationAttested' });
    expect(changed.details).toEqual({ changes: 'winAmountMinor 1000000 → 1; fairnessConfidence 95/100 → 9999/10000', previousAttestation: third.eventId });
    expect(await raisesOf(lowered)).toEqual(['CONFIG.SIGNIFICANT_SETTINGS_CHANGED']);
    causes.push(second, lowered);
  });

  it('a dealer change before the first round raises nothing; one after it raises DEALER.CHANGED_MID_SHOE', async () => {
    const shoeId = runId('mid');
    const dev = (path: string, body: unknown = {}) => h.client.post('table-device', 'device-1', path, body);
    await dev(`/tables/${TABLE}/shoes`, { shoeId, dealerId: 'dealer-1' });
    await dev(`/shoes/${shoeId}/dealer`, { dealerId: 'dealer-2' });
    await dev(`/shoes/${shoeId}/commencement`, { card: 'AS' });
    await dev(`/shoes/${shoeId}/burns`, { card: null });
    await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-R1` });
    await dev(`/shoes/${shoeId}/dealer`, { dealerId: 'dealer-3' });
    const changes = (await h.store.readStream(`shoe-${shoeId}`)).filter((e) => e.type === 'DealerChanged');
    expect(changes.map((e) => (e.data as { dealerId: string }).dealerId)).toEqual(['dealer-2', 'dealer-3']);
    earlyChange = changes[0];
    const raised = await listed('DEALER.CHANGED_MID_SHOE', changes[1].eventId);
    mine.add(`significant-${raised.significantEventId}`);
    expect(raised).toMatchObject({ severity: 'low', tableId: TABLE, shoeId, dealerId: 'dealer-3', actorId: 'device-1', causeEventType: 'DealerChanged' });
    expect(raised.details).toEqual({ previousDealerId: 'dealer-2', dealerId: 'dealer-3' });
    expect(await raisesOf(earlyChange)).toEqual([]);
    causes.push(changes[1]);
  });

  it("npm run -s verify, once the grace period is over, finds every raise the monitor owed this run's causes (completeness)", async () => {
    const report = await verifyAt(new Date(Date.now() + 600_000));
    expect(report.significantCauses.monitoredFrom).not.toBeNull();
    expect(report.significantCauses.checked).toBeGreaterThanOrEqual(5);
    const ids = new Set(causes.map((c) => c.eventId));
    expect(causes).toHaveLength(3);
    expect(report.divergences.filter((d) => d.kind === 'SIGNIFICANT_EVENT_MISSING' && ids.has(d.eventId!))).toEqual([]);
  });

  it('npm run -s verify passes the genuine raises and reports a raise for a change before the first round, or for an identical restart', async () => {
    expect((await significantDivergences()).filter((d) => mine.has(d.streamId!))).toEqual([]);
    const forgedDealer = await forge(earlyChange, 'DEALER.CHANGED_MID_SHOE', 'low', { previousDealerId: 'dealer-1', dealerId: 'dealer-2' });
    const forgedKeys = await forge(third, 'CONFIG.KEYS_ROTATED', 'high', { changes: 'tokens key hs256:0 added', previousAttestation: second.eventId });
    const found = (await significantDivergences()).filter((d) => d.streamId === forgedDealer || d.streamId === forgedKeys || mine.has(d.streamId!));
    expect(found.map((d) => [d.streamId, d.reason]).sort()).toEqual(
      [
        [forgedDealer, `SignificantEventRaised: its DealerChanged (version ${earlyChange.streamVersion} of ${earlyChange.streamId}) came before any round of its shoe: not mid-shoe`],
        [forgedKeys, `SignificantEventRaised: its ConfigurationAttested at ${third.globalPosition} changed no keys since the previous attestation ${second.eventId}`],
      ].sort(),
    );
  });
});
