/**
 * Attack: the API's own database login (`ledger_app`, which may execute `ledger_append`) squats the
 * streams of significant events (docs/significant-events.md, "What the database refuses"; found by
 * review):
 *
 *  - suppression: a raise's id is a hash of its cause and code, known before the monitor appends it;
 *    any event appended first at version 1 of `significant-<id>` made the monitor's raise a version
 *    conflict, taken for "raised before": the ROUND.VOIDED was never raised, and verify said nothing;
 *  - silencing: any event at version 2 of a genuine high-severity raise's stream counted as its
 *    acknowledgement in the escalation gauges (the overdue alert never fired), and verify said nothing.
 *
 * Now `ledger_append` refuses, whatever login calls it, anything but a `SignificantEventRaised` at
 * version 1 and a `SignificantEventAcknowledged` at version 2 of a significant stream
 * (`APPEND.INVALID`, nothing written). For a ledger written before that guard (simulated by putting
 * the previous function text back for a moment, as its owner): the gauges count a raise acknowledged
 * only by a `SignificantEventAcknowledged`, verify reports each foreign event
 * (`SIGNIFICANT_STREAM_FOREIGN_EVENT`), and the monitor's raise that meets a squatted stream is
 * logged at error and counted (`ledger_significant_raise_conflicts_total`), not taken as raised.
 *
 * Real PostgreSQL (the test database, migrated as its owner; appends as `ledger_app`).
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { checkSignificantEvents, DivergenceList, pgSession, significantEventIdOf } from '@ledger/anchors';
import { createDataSource, InvalidAppendError, PgEventStore, type AppendRequest } from '@ledger/event-store';
import { significantStreamId, type NewEvent, type SignificantEventRaisedData } from '@ledger/events';
import { significantEventSpec } from '@ledger/significant-events';
import { REFERENCES_BY_INSERT_FUNCTION_SQL } from '../../libs/event-store/src/migrations/1799700000000-ReferencesByInsert';
import { GUARD_SIGNIFICANT_STREAMS_FUNCTION_SQL } from '../../libs/event-store/src/migrations/1799900000000-GuardSignificantStreams';
import { collectingLogger, dealerChanges, ensureTestTopic, ids, openTestDataSource, TEST_APP_DATABASE_URL, TEST_DATABASE_URL, TEST_EVENTS_TOPIC } from '../../libs/event-store/src/testing/int-support';
import { appendRaiseData } from '../../apps/ledger/src/significant-events/raise';
import { significantMetrics } from '../../apps/ledger/src/significant-events/significant-metrics';

jest.setTimeout(60_000);

let owner: DataSource;
let app: DataSource;
/** The event store as the API's login, `ledger_app`. */
let store: PgEventStore;
let ownerClient: Client;

beforeAll(async () => {
  // the outbox rows written here name the test topic: a relay started later must find it
  await ensureTestTopic();
  owner = await openTestDataSource(2);
  app = createDataSource(TEST_APP_DATABASE_URL, { poolSize: 2, applicationName: 'ledger-int-squat' });
  await app.initialize();
  store = new PgEventStore(app, { logger: collectingLogger(), topic: TEST_EVENTS_TOPIC });
  ownerClient = new Client({ connectionString: TEST_DATABASE_URL });
  await ownerClient.connect();
});

afterAll(async () => {
  await ownerClient?.end();
  await app?.destroy();
  await owner?.destroy();
});

/** The raise the monitor would append for `code` caused by a fresh event (its id as `significantEventIdOf` gives it). */
function raiseOf(code: 'ROUND.VOIDED' | 'WIN.LARGE'): SignificantEventRaisedData {
  const causeEventId = randomUUID();
  const shoeId = `squat-${randomUUID().slice(0, 8)}`;
  return {
    significantEventId: significantEventIdOf(causeEventId, code),
    code,
    severity: significantEventSpec(code).severity,
    cause: { eventId: causeEventId, globalPosition: '1', streamId: `shoe-${shoeId}`, eventType: code === 'WIN.LARGE' ? 'BetSettled' : 'RoundVoided' },
    tableId: 'T-SQUAT',
    shoeId,
    actor: 'device-1',
    details: {},
  };
}

/** A `ClockAttested` as the clock attestor writes it (any event but the two significant ones would do). */
function clockAttested(): NewEvent {
  const at = new Date().toISOString();
  return {
    eventId: randomUUID(),
    type: 'ClockAttested',
    data: { host: 'squatter', reason: 'PERIODIC', source: 'unsynchronised: no time-sync service found', synchronised: false, ledgerClock: at, databaseClock: at, offsetMs: 0 },
  } as NewEvent;
}

/** An acknowledgement of `raise` by pit manager `by`. */
function ackOf(raise: SignificantEventRaisedData, by = 'pm-genuine'): NewEvent {
  return { eventId: randomUUID(), type: 'SignificantEventAcknowledged', data: { significantEventId: raise.significantEventId, code: raise.code, reason: 'seen and checked', acknowledgedBy: by, role: 'pit-manager' } } as NewEvent;
}

/** An append as `ledger_app` to `significant-<id>` of `raise` at `expectedVersion`. */
function onStream(raise: SignificantEventRaisedData, expectedVersion: number, events: NewEvent[], actor = { id: 'insider', role: 'pit-manager' as const }): AppendRequest {
  return { streamId: significantStreamId(raise.significantEventId), tableId: 'T-SQUAT', expectedVersion, events, metadata: { actor, correlationId: randomUUID() } };
}

/** What the append answered: the error, or null when it appended. */
async function refusal(req: AppendRequest): Promise<unknown> {
  return store.append(req).then(
    () => null,
    (e: unknown) => e,
  );
}

/** The stored (version, type) of `raise`'s stream. */
async function storedOf(raise: SignificantEventRaisedData): Promise<[number, string][]> {
  const { rows } = await ownerClient.query<{ v: number; type: string }>(`SELECT stream_version AS v, type FROM events WHERE stream_id = $1 ORDER BY stream_version`, [significantStreamId(raise.significantEventId)]);
  return rows.map((r) => [r.v, r.type]);
}

/** The high-severity raises the escalation gauge counts open. */
async function openHigh(): Promise<number> {
  const counts = await store.significant.openCounts({ severities: ['high'], deadlineSeconds: 3600 });
  return counts.find((c) => c.severity === 'high')?.unacknowledged ?? 0;
}

/** Runs `fn` with `ledger_append` as it was before the guard (a ledger written then), and puts the guard back. */
async function beforeTheGuard<T>(fn: () => Promise<T>): Promise<T> {
  await owner.query(REFERENCES_BY_INSERT_FUNCTION_SQL);
  try {
    return await fn();
  } finally {
    await owner.query(GUARD_SIGNIFICANT_STREAMS_FUNCTION_SQL);
  }
}

/** The foreign-event divergences verify's step 7 reports for `raise`'s stream. */
async function foreignIn(raise: SignificantEventRaisedData): Promise<[string, number | null, string][]> {
  const out = new DivergenceList(100_000);
  await checkSignificantEvents(pgSession(ownerClient), out);
  return out
    .sorted()
    .filter((d) => d.kind === 'SIGNIFICANT_STREAM_FOREIGN_EVENT' && d.streamId === significantStreamId(raise.significantEventId))
    .map((d) => [d.kind, d.version, d.reason.split(' ')[0]]);
}

describe('ledger_app cannot squat the stream of a significant event', () => {
  it('suppression: any event at version 1 of the stream a raise will take is refused (APPEND.INVALID, nothing written); the raise then goes through', async () => {
    const raise = raiseOf('ROUND.VOIDED');
    const err = await refusal(onStream(raise, 0, [clockAttested()]));
    expect(err).toBeInstanceOf(InvalidAppendError);
    expect(err).toMatchObject({ code: 'APPEND.INVALID', details: { streamId: significantStreamId(raise.significantEventId), refused: 'version 1: ClockAttested' } });
    // not even the stream's row
    const { rows } = await ownerClient.query(`SELECT 1 FROM streams WHERE stream_id = $1`, [significantStreamId(raise.significantEventId)]);
    expect(rows).toEqual([]);
    // an acknowledgement cannot take the raise's place either
    expect(await refusal(onStream(raise, 0, [ackOf(raise)]))).toMatchObject({ code: 'APPEND.INVALID' });
    expect(await appendRaiseData(store, raise, { tableId: 'T-SQUAT' })).toBe(true);
    expect(await storedOf(raise)).toEqual([[1, 'SignificantEventRaised']]);
  });

  it('silencing: any event at version 2 of a genuine raise is refused; the raise stays open and a genuine manager acknowledges it; nothing goes above version 2', async () => {
    const raise = raiseOf('WIN.LARGE');
    expect(await appendRaiseData(store, raise, { tableId: 'T-SQUAT' })).toBe(true);
    const open = await openHigh();
    for (const events of [[clockAttested()], dealerChanges(1), [{ eventId: randomUUID(), type: 'SignificantEventRaised', data: raise } as NewEvent]]) {
      const err = await refusal(onStream(raise, 1, events));
      expect(err).toMatchObject({ code: 'APPEND.INVALID', details: { refused: `version 2: ${events[0].type}` } });
    }
    expect(await storedOf(raise)).toEqual([[1, 'SignificantEventRaised']]);
    expect(await openHigh()).toBe(open);
    expect(await refusal(onStream(raise, 1, [ackOf(raise)], { id: 'pm-genuine', role: 'pit-manager' }))).toBeNull();
    expect(await openHigh()).toBe(open - 1);
    // a second acknowledgement, or anything else, beyond version 2
    for (const events of [[ackOf(raise, 'pm-other')], [clockAttested()]]) {
      expect(await refusal(onStream(raise, 2, events))).toMatchObject({ code: 'APPEND.INVALID', details: { refused: `version 3: ${events[0].type}` } });
    }
    expect(await storedOf(raise)).toEqual([
      [1, 'SignificantEventRaised'],
      [2, 'SignificantEventAcknowledged'],
    ]);
    expect(await foreignIn(raise)).toEqual([]);
  });

  it('a raise and its acknowledgement in one append pass; with anything after them they do not', async () => {
    const raise = raiseOf('WIN.LARGE');
    const raised = { eventId: raise.significantEventId, type: 'SignificantEventRaised', data: raise } as NewEvent;
    expect(await refusal(onStream(raise, 0, [raised, ackOf(raise), clockAttested()]))).toMatchObject({ code: 'APPEND.INVALID', details: { refused: 'version 3: ClockAttested' } });
    expect(await storedOf(raise)).toEqual([]);
    expect(await refusal(onStream(raise, 0, [raised, ackOf(raise)]))).toBeNull();
  });

  it('called directly in SQL with the login, the function itself refuses (SQLSTATE LA022, the refused version and type in its HINT)', async () => {
    const raise = raiseOf('ROUND.VOIDED');
    const c = new Client({ connectionString: TEST_APP_DATABASE_URL });
    await c.connect();
    try {
      const e = clockAttested();
      const hash = 'f'.repeat(64);
      const err = await c
        .query(
          `SELECT * FROM ledger_append($1, 'T-SQUAT', 0, $2, ARRAY[$3]::uuid[], ARRAY['ClockAttested'], ARRAY[1], ARRAY[$4]::jsonb[], ARRAY[$2], ARRAY[$5],
                                       'insider', 'pit-manager', now(), now(), 'corr', 'corr', $6, '{}'::text[], '{}'::text[], NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
          [significantStreamId(raise.significantEventId), '0'.repeat(64), e.eventId, JSON.stringify(e.data), hash, TEST_EVENTS_TOPIC],
        )
        .then(
          () => null,
          (x: { code?: string; hint?: string }) => x,
        );
      expect(err).toMatchObject({ code: 'LA022', hint: 'version 1: ClockAttested' });
    } finally {
      await c.end();
    }
    expect(await storedOf(raise)).toEqual([]);
  });

  it('other streams are not concerned', async () => {
    const shoe = ids();
    const r = await store.append({ ...shoe, expectedVersion: 0, events: [...dealerChanges(2), clockAttested()], metadata: { actor: { id: 'device-1', role: 'table-device' }, correlationId: randomUUID() } });
    expect(r.lastVersion).toBe(3);
  });
});

describe('a ledger written before the guard: the gauges, verify and the monitor are not fooled', () => {
  it('silenced: a foreign event at version 2 does not acknowledge the raise, and verify reports it', async () => {
    const raise = raiseOf('WIN.LARGE');
    expect(await appendRaiseData(store, raise, { tableId: 'T-SQUAT' })).toBe(true);
    const open = await openHigh();
    await beforeTheGuard(() => store.append(onStream(raise, 1, [clockAttested()])));
    expect(await storedOf(raise)).toEqual([
      [1, 'SignificantEventRaised'],
      [2, 'ClockAttested'],
    ]);
    expect(await openHigh()).toBe(open);
    expect(await foreignIn(raise)).toEqual([['SIGNIFICANT_STREAM_FOREIGN_EVENT', 2, 'ClockAttested']]);
  });

  it('suppressed: the monitor meeting a squatted stream does not take it for raised: logged at error, counted; verify reports the squatter', async () => {
    const raise = raiseOf('ROUND.VOIDED');
    await beforeTheGuard(() => store.append(onStream(raise, 0, [clockAttested()])));
    const conflicts = async () => (await significantMetrics.raiseConflicts.get()).values.find((v) => v.labels.code === 'ROUND.VOIDED')?.value ?? 0;
    const before = await conflicts();
    expect(await appendRaiseData(store, raise, { tableId: 'T-SQUAT' })).toBe(false);
    expect(await conflicts()).toBe(before + 1);
    expect(await foreignIn(raise)).toEqual([['SIGNIFICANT_STREAM_FOREIGN_EVENT', 1, 'ClockAttested']]);
    // a genuine redelivery of a raise is still "raised before", not a conflict
    const genuine = raiseOf('ROUND.VOIDED');
    expect(await appendRaiseData(store, genuine, { tableId: 'T-SQUAT' })).toBe(true);
    expect(await appendRaiseData(store, genuine, { tableId: 'T-SQUAT' })).toBe(false);
    expect(await conflicts()).toBe(before + 1);
  });
});
