/**
 * Generates the known-answer fixtures of the hash chain, the record signature and the anchors'
 * Merkle root (docs/guarantees.md §8) ONCE:
 *
 *   npx tsx scripts/gen-known-answers.ts --write
 *
 * writes `libs/event-store/src/known-answers.json` (events of every type and of the three games,
 * canonical JSON cases with unicode, big numbers, nesting and key-order variants; their canonical
 * bytes as hex, hashes, Kafka record values and `ledger-sig` signatures) and
 * `libs/anchors/src/known-answers.json` (Merkle roots of fixed leaf sets). The files are then
 * FROZEN: the unit specs (`known-answers.unit.spec.ts` next to them) compare today's code with the
 * stored bytes and never regenerate them. Regenerating is only right together with a new version of
 * the hash contract (a changed chain breaks every ledger already written). Without `--write` the
 * script only prints whether the stored files still match what the code computes now.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EVENT_TYPES, GENESIS_HASH, type LedgerEvent } from '@ledger/events';
import { canonicalJson, computeEventHash, hashedFields } from '../libs/event-store/src/hash';
import { recordSignature, DEV_RECORD_SIGNING_KEY } from '../libs/event-store/src/record-signature';
import { toKafkaMessage } from '../libs/event-store/src/relay-record';
import { envelopeToRow } from '../libs/event-store/src/rows';
import { merkleRoot, streamLeaf, streamsMerkleRoot, sortStreams, type AnchoredStream } from '../libs/anchors/src/merkle';
import { smallShoe } from '../libs/projections/src/testing/small-shoe.fixture';
import { syntheticLedger } from '../libs/projections/src/testing/synthetic-shoes';

const EVENTS_FILE = resolve(__dirname, '../libs/event-store/src/known-answers.json');
const ANCHORS_FILE = resolve(__dirname, '../libs/anchors/src/known-answers.json');

/** A fixed signing key of the fixture (not the development key, so both are covered). */
const FIXTURE_SIGNING_KEY = 'known-answer-signing-key-0123456789abcdef-ÄÖÜ';

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

const rowOf = (e: LedgerEvent) => envelopeToRow(e);

/** Events of the types the generated shoes never hold, chained after `after` (same stream). */
function crafted(after: LedgerEvent): LedgerEvent[] {
  const datas: [string, Record<string, unknown>][] = [
    ['CommencementCorrected', { card: 'KH', burnCount: 10, reason: 'burn card misread — «Kö»', compensates: after.eventId, decision: null }],
    ['CardDropped', { roundId: null, card: null, phase: 'SHUFFLE', exposedBeforeLeavingView: false }],
    ['UnneededCardDrawn', { roundId: 'R-0001', card: '9S' }],
    [
      'DecisionRequested',
      {
        decisionId: 'd-0001',
        proposal: { kind: 'VOID_ROUND', roundId: 'R-0001', cards: null, card: null },
        reason: 'card 😀 exposed during dealing',
        requestedBy: 'pm-ünïcode',
        expiresAt: '2025-03-01T06:00:00.000Z',
        roundIds: ['R-0001'],
        dealerIds: ['D-ANNA'],
        affectedBets: [{ betId: 'b-1', roundId: 'R-0001', accountId: 'acc-1', code: 'PLAYER', amount: '900719925474099312345', currency: 'EUR' }],
      },
    ],
    ['DecisionApproved', { decisionId: 'd-0001', approvedBy: 'pm-2', requestedBy: 'pm-ünïcode', reason: null }],
    ['DecisionRejected', { decisionId: 'd-0002', rejectedBy: 'pm-2', requestedBy: 'pm-1', reason: 'not needed' }],
    ['DecisionExpired', { decisionId: 'd-0003', requestedBy: 'pm-1', expiresAt: '2025-03-01T06:30:00.000Z' }],
  ];
  const out: LedgerEvent[] = [];
  let prev = after;
  for (const [i, [type, data]] of datas.entries()) {
    const id = `5a1e0000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
    const base = {
      eventId: id,
      type,
      schemaVersion: 1,
      streamId: prev.streamId,
      streamVersion: prev.streamVersion + 1,
      tableId: prev.tableId,
      occurredAt: `2025-03-01T07:00:0${i}.000Z`,
      recordedAt: `2025-03-01T07:00:0${i}.125Z`,
      actor: { id: 'pm-ünïcode', role: 'pit-manager' },
      correlationId: id,
      causationId: prev.eventId,
      prevHash: prev.hash,
      data,
    };
    const e = { ...base, hash: computeEventHash(base as never), globalPosition: String(BigInt(prev.globalPosition) + 1n) } as unknown as LedgerEvent;
    out.push(e);
    prev = e;
  }
  return out;
}

/**
 * A significant event's stream (docs/significant-events.md): its raise and its acknowledgement,
 * chained from the genesis hash in `significant-<id>`, after `after` in global order. Added with
 * those types, after every earlier fixture event (which stay byte for byte as they were).
 */
function significant(after: LedgerEvent): LedgerEvent[] {
  const sid = '5a1e0002-0000-4000-8000-000000000001';
  const datas: [string, string, string, Record<string, unknown>][] = [
    [
      'SignificantEventRaised',
      'significant-event-monitor',
      'system',
      {
        significantEventId: sid,
        code: 'WIN.LARGE',
        severity: 'high',
        cause: { eventId: after.eventId, globalPosition: after.globalPosition, streamId: after.streamId, eventType: after.type },
        tableId: 'T-FX-1',
        actor: 'pm-ünïcode',
        details: { stake: '1', winnings: '900719925474099312345', by: 'multiple,amount' },
      },
    ],
    ['SignificantEventAcknowledged', 'aud-ü', 'auditor', { significantEventId: sid, code: 'WIN.LARGE', reason: 'reviewed — «Kö»', acknowledgedBy: 'aud-ü', role: 'auditor' }],
  ];
  const out: LedgerEvent[] = [];
  let prevHash = GENESIS_HASH;
  let position = BigInt(after.globalPosition);
  for (const [i, [type, actorId, role, data]] of datas.entries()) {
    const id = i === 0 ? sid : `5a1e0002-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
    position += 1n;
    const base = {
      eventId: id,
      type,
      schemaVersion: 1,
      streamId: `significant-${sid}`,
      streamVersion: i + 1,
      tableId: 'T-FX-1',
      occurredAt: `2025-03-01T07:20:0${i}.000Z`,
      recordedAt: `2025-03-01T07:20:0${i}.125Z`,
      actor: { id: actorId, role },
      correlationId: id,
      causationId: i === 0 ? after.eventId : sid,
      prevHash,
      data,
    };
    const e = { ...base, hash: computeEventHash(base as never), globalPosition: position.toString() } as unknown as LedgerEvent;
    out.push(e);
    prevHash = e.hash;
  }
  return out;
}

/**
 * The ledger-wide events of a gaming day's stream (docs/reports.md §2), chained from the genesis hash in
 * their own stream `gaming-day-2025-03-01` (table id `*`), after `after` in global order. Added with
 * those types, after every earlier fixture event (which stay byte for byte as they were).
 */
function gamingDay(after: LedgerEvent): LedgerEvent[] {
  const datas: [string, Record<string, unknown>][] = [
    ['GamingDayCloseRequested', { requestId: 'r-0001', gamingDay: '2025-03-01', tableIds: null, reason: 'studio closes early — «Kö»', requestedBy: 'pm-ünïcode', expiresAt: '2025-03-01T08:00:00.000Z' }],
    [
      'GamingDayClosed',
      {
        gamingDay: '2025-03-01',
        tableIds: ['T-FX-1', 'aapi-T'],
        throughPosition: '900719925474099312345',
        reportSha256: 'a'.repeat(64),
        signature: 'AAAA',
        keyId: 'ed25519:00',
        trigger: 'MANAGER',
        early: { requestId: 'r-0001', reason: 'studio closes early — «Kö»', requestedBy: 'pm-ünïcode', approvedBy: 'pm-2' },
      },
    ],
    [
      'ClockAttested',
      {
        host: 'ledger-api-ü1',
        reason: 'START',
        source: 'timedatectl: NTP=yes NTPSynchronized=yes',
        synchronised: true,
        ledgerClock: '2025-03-01T07:10:02.100Z',
        databaseClock: '2025-03-01T07:10:02.097Z',
        offsetMs: -3,
      },
    ],
  ];
  const out: LedgerEvent[] = [];
  let prevHash = GENESIS_HASH;
  let position = BigInt(after.globalPosition);
  for (const [i, [type, data]] of datas.entries()) {
    const id = `5a1e0001-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
    position += 1n;
    const base = {
      eventId: id,
      type,
      schemaVersion: 1,
      streamId: 'gaming-day-2025-03-01',
      streamVersion: i + 1,
      tableId: '*',
      occurredAt: `2025-03-01T07:10:0${i}.000Z`,
      recordedAt: `2025-03-01T07:10:0${i}.125Z`,
      actor: i === 2 ? { id: 'clock-attestor', role: 'system' } : { id: i === 0 ? 'pm-ünïcode' : 'pm-2', role: 'pit-manager' },
      correlationId: id,
      causationId: id,
      prevHash,
      data,
    };
    const e = { ...base, hash: computeEventHash(base as never), globalPosition: position.toString() } as unknown as LedgerEvent;
    out.push(e);
    prevHash = e.hash;
  }
  return out;
}

/**
 * A configuration attestation (docs/significant-events.md, "Configuration at start"): the next event
 * of the gaming day's stream (after `lastOfDay`), placed after `after` in global order, so every
 * earlier fixture event stays byte for byte as it was.
 */
function configurationAttested(lastOfDay: LedgerEvent, after: LedgerEvent): LedgerEvent {
  const id = '5a1e0003-0000-4000-8000-000000000001';
  const base = {
    eventId: id,
    type: 'ConfigurationAttested',
    schemaVersion: 1,
    streamId: lastOfDay.streamId,
    streamVersion: lastOfDay.streamVersion + 1,
    tableId: '*',
    occurredAt: '2025-03-01T07:30:00.000Z',
    recordedAt: '2025-03-01T07:30:00.125Z',
    actor: { id: 'configuration-attestor', role: 'system' },
    correlationId: id,
    causationId: id,
    prevHash: lastOfDay.hash,
    data: {
      host: 'ledger-api-ü1',
      tables: [{ tableId: 'T-FX-1', variant: 'classic', decks: 8, currency: 'EUR', virtualTable: false, pairBetsRequireMainBet: true, limitsSha256: '0f'.repeat(32), paytableRef: 'classic-standard@1' }],
      paytables: [{ ref: 'classic-standard@1', sha256: 'e3'.repeat(32) }],
      keys: { anchors: ['ed25519:00112233aabbccdd'], reports: null, tokens: ['kid=k-ü/rs256:0123456789abcdef'] },
    },
  };
  return { ...base, hash: computeEventHash(base as never), globalPosition: (BigInt(after.globalPosition) + 1n).toString() } as unknown as LedgerEvent;
}

/** The events of the fixture: for every (type, variant) the first one, then the crafted ones. */
function pickEvents(): LedgerEvent[] {
  const all = [
    ...smallShoe({ shoeId: 'fx-1', tableId: 'T-FX-1' }).events,
    ...syntheticLedger({ shoes: 6, seed: 5, prefix: 'aapi', voidRate: 0.08, correctionRate: 0.08, exposedCardRate: 0.03, shoeVoidRate: 0.34, maxRounds: 40 }).events,
  ];
  const variantOf = new Map<string, string>();
  for (const e of all) if (e.type === 'ShoeOpened') variantOf.set(e.streamId, (e.data as { variant: string }).variant);
  const seen = new Set<string>();
  const picked: LedgerEvent[] = [];
  for (const e of all) {
    const k = `${e.type}/${variantOf.get(e.streamId)}`;
    if (seen.has(k)) continue;
    seen.add(k);
    picked.push(e);
  }
  const shoeEvents = [...picked, ...crafted(all[all.length - 1])];
  const dayEvents = gamingDay(shoeEvents[shoeEvents.length - 1]);
  const sigEvents = significant(dayEvents[dayEvents.length - 1]);
  const events = [...shoeEvents, ...dayEvents, ...sigEvents, configurationAttested(dayEvents[dayEvents.length - 1], sigEvents[sigEvents.length - 1])];
  const missing = EVENT_TYPES.filter((t) => !events.some((e) => e.type === t));
  if (missing.length) throw new Error(`no event of ${missing.join(', ')}`);
  return events;
}

/** Canonical JSON cases: the value as JSON text (numbers exactly as written) and a name. */
const CANONICAL_CASES: { name: string; json: string }[] = [
  { name: 'key order: insertion a,b,c', json: '{"c":3,"a":1,"b":2}' },
  { name: 'key order: insertion b,c,a (same canonical bytes as above)', json: '{"b":2,"c":3,"a":1}' },
  { name: 'key order by UTF-16 code units, not code points: 😀 (U+1F600, D83D DE00) sorts before ｱ (U+FF71)', json: '{"ｱ":1,"😀":2,"€":3,"\\r":4,"1":5,"A":6,"a":7,"é":8}' },
  { name: 'nested objects and arrays, key order inside', json: '{"z":{"y":{"x":[{"b":1,"a":[3,2,1]},{"d":null,"c":true}]}},"a":{}}' },
  { name: 'unicode strings: accents, CJK, emoji, combining marks', json: '{"s":["Kölner Straße","百家乐","🂡🂱","e\\u0301","\\ud83d\\ude00"]}' },
  { name: 'escapes: control characters, quotes, backslash, U+2028, DEL', json: '{"s":"\\u0000\\u0001\\b\\t\\n\\f\\r\\u001f\\"\\\\/\\u2028\\u2029\\u007f"}' },
  { name: 'integers: zero, negative zero, safe limits, money as strings', json: '{"n":[0,-0,1,-1,9007199254740991,-9007199254740991],"amount":"123456789012345678901234567890","minor":"-100"}' },
  { name: 'numbers: ECMAScript formatting of large, small and fractional values', json: '{"n":[1e21,1e20,123456789012345680000,0.000001,1e-7,1.5,-2.25,333333333.3333333,5e-324,1.7976931348623157e308]}' },
  { name: 'literals and empty containers', json: '{"t":true,"f":false,"n":null,"o":{},"a":[],"s":""}' },
];

/** Fixed stream heads for the Merkle cases. */
function streams(n: number): AnchoredStream[] {
  const out: AnchoredStream[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ streamId: `shoe-${['demo', 'ü', 'T-CLASSIC-01', 'Z', 'a', 'tiger-7', 'fab4', '百'][i % 8]}-${i}`, version: i * 37 + 1, headHash: hex(`head-${i}`).padEnd(64, '0').slice(0, 64) });
  }
  return sortStreams(out);
}

function build(): { events: object; anchors: object } {
  const events = pickEvents().map((e) => {
    const canonical = canonicalJson(hashedFields(e));
    const message = toKafkaMessage(rowOf(e));
    const value = (message.value as Buffer).toString('utf8');
    const hash = computeEventHash(e);
    if (hash !== e.hash) throw new Error(`${e.eventId}: stored hash is not the computed one`);
    return {
      envelope: e,
      canonicalHex: hex(canonical),
      hash,
      record: {
        key: e.tableId,
        valueHex: hex(value),
        ledgerSigDevKey: (message.headers as Record<string, Buffer | string>)['ledger-sig'].toString(),
        ledgerSigFixtureKey: recordSignature(FIXTURE_SIGNING_KEY, e.tableId, value),
      },
    };
  });
  const canonical = CANONICAL_CASES.map((c) => ({ ...c, canonicalHex: hex(canonicalJson(JSON.parse(c.json))) }));
  const signatures = [
    { key: null, valueHex: '', secret: FIXTURE_SIGNING_KEY },
    { key: 'T-CLASSIC-01', valueHex: hex('{}'), secret: FIXTURE_SIGNING_KEY },
    { key: 'ü', valueHex: hex('{"a":"€"}'), secret: DEV_RECORD_SIGNING_KEY },
  ].map((s) => ({ ...s, signature: recordSignature(s.secret, s.key, Buffer.from(s.valueHex, 'hex')) }));
  const merkle = [0, 1, 2, 3, 4, 5, 7, 8, 13].map((n) => {
    const ss = streams(n);
    return { streams: ss, leavesHex: ss.map((s) => streamLeaf(s).toString('hex')), root: streamsMerkleRoot(ss) };
  });
  const raw = [[], ['00'], ['', ''], ['01', '02', '03']].map((leaves) => ({ leavesHex: leaves, root: merkleRoot(leaves.map((l) => Buffer.from(l, 'hex'))) }));
  return {
    events: { signingKey: FIXTURE_SIGNING_KEY, devSigningKey: DEV_RECORD_SIGNING_KEY, events, canonical, signatures },
    anchors: { merkle, raw },
  };
}

const { events, anchors } = build();
const text = (v: object) => `${JSON.stringify({ note: 'FROZEN known answers (docs/guarantees.md §8): generated once by scripts/gen-known-answers.ts; never regenerate to make a spec pass', ...v }, null, 2)}\n`;
if (process.argv.includes('--write')) {
  writeFileSync(EVENTS_FILE, text(events));
  writeFileSync(ANCHORS_FILE, text(anchors));
  console.log(`wrote ${EVENTS_FILE} and ${ANCHORS_FILE}`);
} else {
  const same = readFileSync(EVENTS_FILE, 'utf8') === text(events) && readFileSync(ANCHORS_FILE, 'utf8') === text(anchors);
  console.log(same ? 'the stored known answers match the code' : 'the code no longer gives the stored known answers');
  process.exitCode = same ? 0 : 1;
}
