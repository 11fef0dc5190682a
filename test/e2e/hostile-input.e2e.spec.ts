/**
 * Hostile input through HTTP (docs/guarantees.md §11, §12 and §13): more than
 * 10,000 generated malformed or impossible write requests, fired 8 at a time at the real API, around
 * a few real shoes in known states (betting open, dealing, between rounds, closed, voided, two side-bet
 * shoes past their window). Every request carries at least one defect that must refuse it whatever
 * else it holds; many wrap a command that is otherwise valid (the control test at the end proves those
 * commands are accepted once the defect is gone), so "refused" cannot come from the wrong check.
 *
 * Management decisions are two requests (docs/domain-rules.md §6): hostile requests of a decision
 * (a dealer requesting, a blank reason, an `approverId` in the body, …) and hostile approvals or
 * rejections of the decision one known shoe holds pending (its requester approving, the dealer
 * approving, an unknown decision, a blank rejection).
 *
 * Asserted: no answer outside 4xx (none accepted, no 5xx); every body `{ error: { code } }` with an
 * `AREA.REASON` code; the status / code each defect calls for; nothing recorded (global head, event
 * count, every known shoe's stream version, outbox, idempotency keys, hash chains); one row in the
 * append-only `rejections` log per refused request (every refused write is logged, 401/403 included),
 * with the same counts per code and status as the answers.
 *
 * Reproducible: fast-check with a fixed seed (env HOSTILE_SEED, default below; HOSTILE_RUNS requests).
 * The spec runs on a database of its own (created and dropped here, same server and role as the
 * test database), so the global assertions hold even while other suites write to `ledger_test`.
 */
import fc from 'fast-check';
import { sign } from 'jsonwebtoken';
import { gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { isISO8601 } from 'class-validator';
import type { LedgerHarness } from '../support/ledger-harness';

const SEED = Number(process.env.HOSTILE_SEED ?? 20261129);
const RUNS = Number(process.env.HOSTILE_RUNS ?? 10_400);
const CONCURRENCY = 8;
/** Hard bound on the hostile phase (aim: well under 90 s on 2 cores). */
const DEADLINE_MS = 240_000;

jest.setTimeout(420_000);

type Role = 'table-device' | 'betting-platform' | 'pit-manager' | 'auditor';
const ROLES: Role[] = ['table-device', 'betting-platform', 'pit-manager', 'auditor'];

const ID = /^[A-Za-z0-9_.:-]{1,64}$/;
const CARD = /^(10|[2-9TJQKA])[SHDC]$/i;
const BET_CODE = /^[A-Z_0-9]{1,32}$/;
const REASON = /^(?:[^\p{Cc}\p{Cs}]|[\t\n\r]){3,500}$/u;
const CODE = /^[A-Z_]+\.[A-Z_]+$/;
const POSITIONS = ['P1', 'B1', 'P2', 'B2', 'P3', 'B3'];
const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'];
const SUITS = ['S', 'H', 'D', 'C'];
const CARDS = RANKS.flatMap((r) => SUITS.map((s) => `${r}${s}`));
/** Every classic shoe here has all eight KH out of the shoe (commencement + 7 burns): a ninth is impossible. */
const GONE = 'KH';
const NOT_GONE = CARDS.filter((c) => c !== GONE);
const DEALER = 'dealer-h';
const TIGER_WINDOW = ['TIGER_PAIR', 'TIGER', 'BIG_TIGER', 'SMALL_TIGER'];
const FAB4_WINDOW = ['PLAYER_FABULOUS_PAIR', 'BANKER_FABULOUS_PAIR'];
const CLASSIC_CODES = ['PLAYER', 'BANKER', 'TIE', 'PLAYER_PAIR', 'BANKER_PAIR', 'EITHER_PAIR'];
const CLASSIC_MAX: Record<string, bigint> = { PLAYER: 1000000n, BANKER: 1000000n, TIE: 100000n, PLAYER_PAIR: 50000n, BANKER_PAIR: 50000n, EITHER_PAIR: 50000n };
const MAX_SAFE = 2n ** 53n - 1n;
const SETUP_KEY = 'hostile-setup-key-0001';
/** The callers (`role:sub`) that used {@link SETUP_KEY} while the shoes were built (BET: opening r1, the existing bet). */
const SETUP_KEY_CALLERS = ['table-device:device-1', 'betting-platform:platform-1'];

// ------------------------------------------------------------------------------------------------
// Requests
// ------------------------------------------------------------------------------------------------

/** A raw JSON literal inside a body (`1e7`, `-0`, `1e400`): JSON.stringify cannot write those. */
class Raw {
  constructor(readonly text: string) {}
}
type Json = unknown;

/** A command as the API takes it. `shoe` names the known shoe (stream) it targets, for expectedVersion. */
interface Cmd {
  ep: EpKey;
  role: Role;
  sub: string;
  path: string;
  body: Record<string, Json>;
  shoe: ShoeKey | 'fresh';
}

interface Hostile {
  family: string;
  defect: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  expect?: { status?: number[]; code?: string[] };
}

function toJson(v: Json): string {
  const raws: string[] = [];
  const text = JSON.stringify(v, (_k, x) => {
    if (x instanceof Raw) {
      raws.push(x.text);
      return `RAW§${raws.length - 1}§`;
    }
    return x;
  });
  return text.replace(/"RAW§(\d+)§"/g, (_m, i) => raws[Number(i)]);
}

// ------------------------------------------------------------------------------------------------
// Endpoints and their body schemas (DTOs under apps/ledger/src/shoe/dto)
// ------------------------------------------------------------------------------------------------

type Kind = 'id' | 'card' | 'cardOrNull' | 'position' | 'bool' | 'reason' | 'phaseExpose' | 'phaseDrop' | 'bet' | 'bets' | 'cards';
interface Ep {
  role: Role;
  required: Record<string, Kind>;
  optional: Record<string, Kind>;
}
const EPS = {
  openShoe: { role: 'table-device', required: { shoeId: 'id', dealerId: 'id' }, optional: {} },
  commence: { role: 'table-device', required: { card: 'card' }, optional: {} },
  burn: { role: 'table-device', required: { card: 'cardOrNull' }, optional: {} },
  openRound: { role: 'table-device', required: { roundId: 'id' }, optional: {} },
  closeBetting: { role: 'table-device', required: {}, optional: {} },
  deal: { role: 'table-device', required: { position: 'position', card: 'card' }, optional: {} },
  unneeded: { role: 'table-device', required: { card: 'card' }, optional: {} },
  expose: { role: 'table-device', required: { card: 'card' }, optional: { phase: 'phaseExpose' } },
  drop: { role: 'table-device', required: { card: 'cardOrNull', exposedBeforeLeavingView: 'bool' }, optional: { phase: 'phaseDrop' } },
  cutCard: { role: 'table-device', required: {}, optional: {} },
  dealer: { role: 'table-device', required: { dealerId: 'id' }, optional: {} },
  close: { role: 'table-device', required: {}, optional: {} },
  bet: { role: 'betting-platform', required: { bet: 'bet' }, optional: {} },
  batch: { role: 'betting-platform', required: { bets: 'bets' }, optional: {} },
  voidRound: { role: 'pit-manager', required: { reason: 'reason' }, optional: {} },
  correct: { role: 'pit-manager', required: { reason: 'reason', cards: 'cards' }, optional: {} },
  voidShoe: { role: 'pit-manager', required: { reason: 'reason' }, optional: {} },
  correctCommencement: { role: 'pit-manager', required: { card: 'card', reason: 'reason' }, optional: {} },
  // the second pit manager's acts on a pending decision (their own token; no approver field anywhere)
  approve: { role: 'pit-manager', required: {}, optional: { reason: 'reason' } },
  reject: { role: 'pit-manager', required: { reason: 'reason' }, optional: {} },
} satisfies Record<string, Ep>;
type EpKey = keyof typeof EPS;
const BET_FIELDS: Record<string, 'id' | 'betCode' | 'stake' | 'currency'> = { betId: 'id', accountId: 'id', betCode: 'betCode', stake: 'stake', currency: 'currency' };

/** The path of an endpoint on shoe `shoe` (for `approve` and `reject`: `shoe` is the decision id). */
function pathOf(ep: EpKey, shoe: string, roundInShoe = 'r1', table = 'T-CLASSIC-01'): string {
  const s = `/shoes/${shoe}`;
  // round ids are ledger-wide references: the spec's rounds are named `<shoe id>.<r…>`
  const round = roundInShoe.includes('.') ? roundInShoe : `${shoe}.${roundInShoe}`;
  switch (ep) {
    case 'openShoe':
      return `/tables/${table}/shoes`;
    case 'commence':
      return `${s}/commencement`;
    case 'burn':
      return `${s}/burns`;
    case 'openRound':
      return `${s}/rounds`;
    case 'closeBetting':
      return `${s}/rounds/${round}/close-betting`;
    case 'deal':
      return `${s}/rounds/${round}/cards`;
    case 'unneeded':
      return `${s}/rounds/${round}/unneeded-cards`;
    case 'expose':
      return `${s}/exposed-cards`;
    case 'drop':
      return `${s}/dropped-cards`;
    case 'cutCard':
      return `${s}/cut-card`;
    case 'dealer':
      return `${s}/dealer`;
    case 'close':
      return `${s}/close`;
    case 'bet':
      return `${s}/rounds/${round}/bets`;
    case 'batch':
      return `${s}/rounds/${round}/bets/batch`;
    case 'voidRound':
      return `${s}/rounds/${round}/void`;
    case 'correct':
      return `${s}/rounds/${round}/result-corrections`;
    case 'voidShoe':
      return `${s}/void`;
    case 'correctCommencement':
      return `${s}/commencement/corrections`;
    case 'approve':
      return `/decisions/${shoe}/approve`;
    case 'reject':
      return `/decisions/${shoe}/reject`;
  }
}

// ------------------------------------------------------------------------------------------------
// The known shoes
// ------------------------------------------------------------------------------------------------

type ShoeKey = 'BET' | 'DEAL' | 'IDLE' | 'CLOSED' | 'VOIDED' | 'TIGER' | 'FAB4' | 'PENDING';
const SHOE_KEYS: ShoeKey[] = ['BET', 'DEAL', 'IDLE', 'CLOSED', 'VOIDED', 'TIGER', 'FAB4', 'PENDING'];
interface World {
  ids: Record<ShoeKey, string>;
  versions: Record<ShoeKey, number>;
  /** A shoe id no shoe was ever opened with. */
  unknownShoe: string;
  /** The decision of the PENDING shoe: a void of r1 requested by pm-1, awaiting a second pit manager. */
  pendingDecision: string;
}

/**
 * Builds a shoe in a known state through the API:
 * - classic shoes: commencement KH, burns 7 × KH + 2D 3D 4D (all eight KH are out);
 * - BET: round r0 voided by an exposed card, round r1 betting with bet `b-existing` (a1 PLAYER 1000);
 * - DEAL: round r1 betting closed, P1 dealt (B1 is next);
 * - IDLE: round r1 resulted (P 9S KD, B 4S 3D: natural 9), between rounds;
 * - CLOSED: IDLE, then the shoe closed;  VOIDED: round r1 with a bet, then the shoe voided (requested
 *   by pm-1, approved by pm-2);
 * - PENDING: IDLE, then a void of r1 requested by pm-1 and not decided: its decision id is returned;
 * - TIGER / FAB4: 60 rounds voided by exposed cards, round r61 betting (past the side-bet window).
 */
async function buildShoe(h: LedgerHarness, key: ShoeKey, shoeId: string, idempotencyKey?: string): Promise<string | undefined> {
  const dev = (path: string, body: unknown, headers: Record<string, string> = {}) => h.client.post('table-device', 'device-1', path, body, headers);
  const s = `/shoes/${shoeId}`;
  const table = key === 'TIGER' ? 'T-TIGER-01' : key === 'FAB4' ? 'T-FAB4-01' : 'T-CLASSIC-01';
  await dev(`/tables/${table}/shoes`, { shoeId, dealerId: DEALER });
  if (key === 'TIGER' || key === 'FAB4') {
    await dev(`${s}/commencement`, { card: '2C' });
    for (const c of ['3C', '4C']) await dev(`${s}/burns`, { card: c });
    for (let i = 1; i <= 60; i++) {
      await dev(`${s}/rounds`, { roundId: `${shoeId}.r${i}` });
      await dev(`${s}/exposed-cards`, { card: CARDS[i % 52] });
    }
    await dev(`${s}/rounds`, { roundId: `${shoeId}.r61` });
    return;
  }
  await dev(`${s}/commencement`, { card: 'KH' });
  for (const c of ['KH', 'KH', 'KH', 'KH', 'KH', 'KH', 'KH', '2D', '3D', '4D']) await dev(`${s}/burns`, { card: c });
  if (key === 'BET') {
    await dev(`${s}/rounds`, { roundId: `${shoeId}.r0` });
    await dev(`${s}/exposed-cards`, { card: '5C' });
  }
  await dev(`${s}/rounds`, { roundId: `${shoeId}.r1` }, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
  await h.client.post(
    'betting-platform',
    'platform-1',
    `${s}/rounds/${shoeId}.r1/bets`,
    { bet: { betId: `${shoeId}.b-existing`, accountId: 'a1', betCode: 'PLAYER', stake: '1000', currency: 'EUR' } },
    idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
  );
  if (key === 'BET') return;
  if (key === 'VOIDED') {
    const { decisionId } = await h.client.post('pit-manager', 'pm-1', `${s}/void`, { reason: 'shoe replaced' });
    await h.client.post('pit-manager', 'pm-2', `/decisions/${decisionId}/approve`, {});
    return;
  }
  await dev(`${s}/rounds/${shoeId}.r1/close-betting`, {});
  if (key === 'DEAL') {
    await dev(`${s}/rounds/${shoeId}.r1/cards`, { position: 'P1', card: '2S' });
    return;
  }
  for (const [position, card] of [
    ['P1', '9S'],
    ['B1', '4S'],
    ['P2', 'KD'],
    ['B2', '3D'],
  ])
    await dev(`${s}/rounds/${shoeId}.r1/cards`, { position, card });
  if (key === 'CLOSED') await dev(`${s}/close`, {});
  if (key === 'PENDING') {
    const requested = await h.client.post('pit-manager', 'pm-1', `${s}/rounds/${shoeId}.r1/void`, { reason: 'card flashed on camera 2' });
    return requested.decisionId as string;
  }
  return undefined;
}

/** Commands that are valid in their shoe's state: the bases the state-independent defects wrap. */
function validBases(w: World): Cmd[] {
  const c = (ep: EpKey, shoe: ShoeKey | 'fresh', body: Record<string, Json>, opts: { round?: string; sub?: string } = {}): Cmd => ({
    ep,
    role: EPS[ep].role as Role,
    sub: opts.sub ?? (EPS[ep].role === 'pit-manager' ? 'pm-1' : EPS[ep].role === 'betting-platform' ? 'platform-1' : 'device-1'),
    path: shoe === 'fresh' ? pathOf(ep, '') : pathOf(ep, w.ids[shoe], opts.round ?? (shoe === 'TIGER' ? 'r61' : 'r1')),
    body,
    shoe,
  });
  const decision = { reason: 'dealer misdealt the hand' };
  return [
    c('closeBetting', 'BET', {}),
    c('cutCard', 'BET', {}),
    c('dealer', 'BET', { dealerId: 'dealer-z' }),
    c('expose', 'BET', { card: '5D' }),
    c('drop', 'BET', { card: null, exposedBeforeLeavingView: false, phase: 'SCOOPING' }),
    c('bet', 'BET', { bet: { betId: 'nb-1', accountId: 'acct-n', betCode: 'BANKER', stake: '2500', currency: 'EUR' } }),
    c('batch', 'BET', {
      bets: [
        { betId: 'nb-2', accountId: 'acct-x', betCode: 'PLAYER', stake: 100, currency: 'EUR' },
        { betId: 'nb-3', accountId: 'acct-y', betCode: 'TIE', stake: '500', currency: 'EUR' },
      ],
    }),
    c('voidRound', 'BET', decision),
    c('correctCommencement', 'BET', { card: 'QH', reason: 'scanner misread the card' }),
    c('deal', 'DEAL', { position: 'B1', card: '5D' }),
    c('unneeded', 'DEAL', { card: '6D' }),
    c('drop', 'DEAL', { card: '7D', exposedBeforeLeavingView: true }),
    c('voidRound', 'DEAL', decision),
    c('openRound', 'IDLE', { roundId: 'r2' }),
    c('close', 'IDLE', {}),
    c('correct', 'CLOSED', { ...decision, cards: ['8S', '4S', 'KD', '3D'] }),
    c('voidRound', 'CLOSED', decision),
    c('voidShoe', 'CLOSED', decision),
    c('bet', 'TIGER', { bet: { betId: 'nb-4', accountId: 'acct-t', betCode: 'PLAYER', stake: '1000', currency: 'EUR' } }),
    { ...c('openShoe', 'fresh', { shoeId: 'hx-fresh-shoe-1', dealerId: DEALER }), path: '/tables/T-CLASSIC-01/shoes' },
  ];
}

// ------------------------------------------------------------------------------------------------
// Hostile values
// ------------------------------------------------------------------------------------------------

const HOSTILE_TEXT = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  'ab\udc00',
  '\u202etxt',
  'a\u200bb',
  '\ufeffabc',
  '🂡',
  'ΩΩΩ',
  'é',
  '\t',
  '\n',
  '\r\n',
  '\u0007',
  '\u001b[31mred',
  '\u0085',
  '\u2028',
  "'; DROP TABLE events; --",
  '" OR 1=1 --',
  '../../etc/passwd',
  '%00',
  '${jndi:ldap://127.0.0.1/a}',
  '<script>x</script>',
  '{{7*7}}',
  'a b',
  'a/b',
  'a?b',
  'a#b',
  'Ｐ1',
  '١٢٣',
  'x'.repeat(65),
  'x'.repeat(1000),
  'y'.repeat(70_000),
];
const textArb = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.integer({ min: 65, max: 5000 }).map((n) => 'z'.repeat(n)),
);
const nonStringArb = fc.constantFrom<Json>(0, 1, -1, 1.5, true, false, [], {}, ['KH'], { v: 'KH' }, new Raw('1e400'), new Raw('-0'), 2 ** 53, 2 ** 63);
const badIdArb = fc.oneof(
  textArb.filter((s) => !ID.test(s)),
  nonStringArb,
  fc.constant<Json>(null),
);
const MALFORMED_CARDS = ['1S', 'ZZ', '10', 'KX', '', ' ', 'K', 'KHH', '11H', '0S', '1OH', 'KH ', ' KH', 'k h', '10 H', 'AS,KH', '♠A', 'A♠', 'KH\u0000', 'KH\n', '\ud800', '１S', 'TEN', '10HH', 'XS', '99'];
const malformedCardArb = fc.oneof(
  fc.constantFrom(...MALFORMED_CARDS),
  textArb.filter((s) => !CARD.test(s)),
);
const badCardArb = fc.oneof(malformedCardArb, nonStringArb, fc.constant<Json>(null));
const badCardOrNullArb = fc.oneof(malformedCardArb, nonStringArb);
const badPositionArb = fc.oneof(
  fc.constantFrom<Json>('P4', 'p1', 'b1', 'B0', '', 'P1 ', 'PLAYER', 'P 1', 'B3\u0000', 'Ｐ1', 'P', null, 1, true, ['P1']),
  textArb.filter((s) => !POSITIONS.includes(s)),
);
const badBoolArb = fc.constantFrom<Json>('true', 'false', 1, 0, null, '', [], {}, 'yes');
const badReasonArb = fc.oneof(
  fc.constantFrom<Json>('', 'a', 'ab', 'abc\u0000', 'ab\u0007c', '\ud800abc', 'abc\u001b[0m', 'r\u0085sn', null, 3, true, ['reason'], { text: 'reason' }),
  fc.integer({ min: 501, max: 3000 }).map((n) => 'r'.repeat(n)),
  textArb.filter((s) => !REASON.test(s)),
);
const badPhaseExposeArb = fc.constantFrom<Json>('shuffle', 'DEALING', 'SCOOPING', 'BETTING_OPEN', '', 'SHUFFLE ', 1, true, [], {});
const badPhaseDropArb = fc.constantFrom<Json>('shuffle', 'DEALING', 'BETWEEN_ROUNDS', 'BURNING', '', 'SCOOPING\u0000', 1, false, [], {});
const badCardsArb = fc.oneof(fc.constantFrom<Json>([], ['9S'], ['9S', '4S', 'KD'], ['9S', '4S', 'KD', '3D', '2C', '2H', '2S'], 'KH,QH,2C,3C', null, 4, {}), fc.array(badCardArb, { minLength: 4, maxLength: 6 }));
const badCurrencyArb = fc.oneof(
  fc.constantFrom<Json>('eur', 'EURO', 'EU', '', 'E1R', '€', 'EUR ', null, 978, true),
  textArb.filter((s) => !/^[A-Z]{3}$/.test(s)),
);
const badBetCodeArb = fc.oneof(
  fc.constantFrom<Json>('player', 'PLAYER-PAIR', '', 'B'.repeat(33), 'PLAYER ', null, 1),
  textArb.filter((s) => !BET_CODE.test(s)),
);
/** Stakes class-validator refuses (`IsMinorUnits`): not digits, not a safe non-negative integer. */
const dtoBadStakeArb = fc.oneof(
  fc.constantFrom<Json>('-1', '1.5', '1e5', ' 100', '100 ', '0x64', '+100', '', 'NaN', 'Infinity', '-0', '1_000', '１００', '1'.repeat(31), null, true, [], {}, -1, 1.5, 2 ** 53, 2 ** 63, 1e21),
  fc.constantFrom(new Raw('1E21'), new Raw('-1e3'), new Raw('1e-2'), new Raw('100.5'), new Raw('9007199254740993'), new Raw('1e400'), new Raw('-1')),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !(Number.isSafeInteger(d) && d >= 0)),
);
const badOccurredAtArb = fc
  .oneof(fc.constantFrom<Json>('yesterday', '2026-13-01T00:00:00Z', '2026-11-29T25:00:00Z', '2026-02-30', 'T12:00', '', 1700000000000, true, [], {}), textArb)
  .filter((v) => !(typeof v === 'string' && isISO8601(v, { strict: true })));
const badExpectedVersionArb = fc.constantFrom<Json>(-1, -0.5, 1.5, '3', '0', true, [], {}, 'NaN', new Raw('1e-3'), new Raw('1e400'), new Raw('-1e400'));

function badValueFor(kind: Kind): fc.Arbitrary<Json> {
  switch (kind) {
    case 'id':
      return badIdArb;
    case 'card':
      return badCardArb;
    case 'cardOrNull':
      return badCardOrNullArb;
    case 'position':
      return badPositionArb;
    case 'bool':
      return badBoolArb;
    case 'reason':
      return badReasonArb;
    case 'phaseExpose':
      return badPhaseExposeArb;
    case 'phaseDrop':
      return badPhaseDropArb;
    case 'cards':
      return badCardsArb;
    case 'bet':
      return fc.constantFrom<Json>(null, 'bet', 1, [], [{ betId: 'x' }], true);
    case 'bets':
      return fc.constantFrom<Json>(null, 'bets', 1, {}, [], [null], [1], ['bet'], [[]], true);
  }
}

// ------------------------------------------------------------------------------------------------
// Tokens
// ------------------------------------------------------------------------------------------------

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** Authorization headers that must be refused with 401, by defect. */
function badAuthorizations(secret: string, valid: (role: Role, sub: string) => string): Array<[string, string | null]> {
  const now = Math.floor(Date.now() / 1000);
  const good = valid('pit-manager', 'pm-1');
  const [gh, , gs] = good.split('.');
  return [
    ['no token', null],
    ['empty header', ''],
    ['scheme only', 'Bearer'],
    ['basic scheme', `Basic ${Buffer.from('pm-1:secret').toString('base64')}`],
    ['token without scheme', good],
    ['two tokens', `Bearer ${good} ${good}`],
    ['garbage', 'Bearer not-a-jwt'],
    ['garbage dots', 'Bearer a.b.c'],
    ['garbage base64', `Bearer ${b64({ alg: 'HS256' })}.${b64('x')}.${'A'.repeat(43)}`],
    ['wrong secret', `Bearer ${sign({ role: 'pit-manager' }, 'not-the-secret', { subject: 'pm-1', algorithm: 'HS256' })}`],
    ['expired', `Bearer ${sign({ role: 'pit-manager', sub: 'pm-1', iat: now - 7200, exp: now - 3600 } satisfies Record<string, unknown>, secret, { algorithm: 'HS256' })}`],
    ['not yet valid', `Bearer ${sign({ role: 'pit-manager', sub: 'pm-1', nbf: now + 3600 } satisfies Record<string, unknown>, secret, { algorithm: 'HS256' })}`],
    ['alg none', `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'pm-1', role: 'pit-manager', iat: now })}.`],
    ['alg none, signature kept', `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'pm-1', role: 'pit-manager', iat: now })}.${gs}`],
    ['HS512 with the right secret', `Bearer ${sign({ role: 'pit-manager' }, secret, { subject: 'pm-1', algorithm: 'HS512' })}`],
    ['HS384 with the right secret', `Bearer ${sign({ role: 'pit-manager' }, secret, { subject: 'pm-1', algorithm: 'HS384' })}`],
    ['payload swapped under a valid signature', `Bearer ${gh}.${b64({ sub: 'pm-1', role: 'auditor' })}.${gs}`],
    ['signature truncated', `Bearer ${good.slice(0, -3)}`],
    ['missing role', `Bearer ${sign({}, secret, { subject: 'pm-1', algorithm: 'HS256' })}`],
    ['unknown role', `Bearer ${sign({ role: 'admin' }, secret, { subject: 'pm-1', algorithm: 'HS256' })}`],
    ['system role', `Bearer ${sign({ role: 'system' }, secret, { subject: 'pm-1', algorithm: 'HS256' })}`],
    ['role case', `Bearer ${sign({ role: 'Pit-Manager' }, secret, { subject: 'pm-1', algorithm: 'HS256' })}`],
    ['role array', `Bearer ${sign({ role: ['pit-manager'] }, secret, { subject: 'pm-1', algorithm: 'HS256' })}`],
    ['missing subject', `Bearer ${sign({ role: 'pit-manager' }, secret, { algorithm: 'HS256' })}`],
    ['empty subject', `Bearer ${sign({ role: 'pit-manager', sub: '' } satisfies Record<string, unknown>, secret, { algorithm: 'HS256' })}`],
    ['numeric subject', `Bearer ${sign({ role: 'pit-manager', sub: 42 } satisfies Record<string, unknown>, secret, { algorithm: 'HS256' })}`],
  ];
}

// ------------------------------------------------------------------------------------------------
// The generator
// ------------------------------------------------------------------------------------------------

interface Ctx {
  w: World;
  bases: Cmd[];
  token: (role: Role, sub: string) => string;
  auths: Array<[string, string | null]>;
}

const E = (status: number[], code?: string[]) => ({ status, code });

/** Body limit of every write but the bets batch (the API's default `BODY_LIMIT_BYTES`, docs/architecture.md §10). */
const WRITE_BODY_LIMIT = 65_536;

/**
 * What a field defect must get: 400 with a validation code, or, when the defect (a nesting 50,000
 * deep) makes the body larger than its route's limit, 413 `REQUEST.TOO_LARGE` before it is read.
 */
function fieldExpectation(cmd: Cmd, body: unknown) {
  return cmd.ep !== 'batch' && Buffer.byteLength(JSON.stringify(body)) > WRITE_BODY_LIMIT ? E([413], ['REQUEST.TOO_LARGE']) : E([400], ['VALIDATION.FAILED', 'CARD.MALFORMED']);
}

function request(family: string, defect: string, cmd: Cmd, ctx: Ctx, over: Partial<Hostile> & { bodyText?: string } = {}): Hostile {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${ctx.token(cmd.role, cmd.sub)}`, ...(over.headers ?? {}) };
  for (const [k, v] of Object.entries(headers)) if (v === undefined || v === null) delete headers[k];
  return {
    family,
    defect,
    method: over.method ?? 'POST',
    path: over.path ?? cmd.path,
    headers,
    body: over.body ?? over.bodyText ?? toJson(cmd.body),
    expect: over.expect,
  };
}

/** Path with the shoe id (or the table id of openShoe) replaced. */
function withShoe(cmd: Cmd, encodedId: string): string {
  if (cmd.ep === 'openShoe') return `/tables/${encodedId}/shoes`;
  return cmd.path.replace(/^\/shoes\/[^/]+/, `/shoes/${encodedId}`);
}

const HOSTILE_PATH_IDS = [
  '%00',
  'a%00b',
  '%FF',
  '%ED%A0%80',
  '%C0%AF',
  '%',
  '%G1',
  '%2F',
  'a%2Fb',
  '%20',
  'a%20b',
  '%27%3B%20DROP%20TABLE%20events%3B--',
  '%F0%9F%82%A1',
  '%E2%80%AE',
  '%EF%BB%BF',
  '%0A',
  '%09',
  'x'.repeat(129),
  'y'.repeat(3000),
  '%2e%2e',
  '..',
  '.',
];
const pathIdArb = fc.oneof(
  fc.constantFrom(...HOSTILE_PATH_IDS),
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
    .filter((s) => !/^[A-Za-z0-9_.:@-]{1,128}$/.test(s))
    .map(encodeURIComponent),
);
const unknownIdArb = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,40}$/).map((s) => `nx-${s}`);

/** Field mutations that class-validator refuses (400) on a DTO-valid command. */
function fieldDefect(cmd: Cmd): fc.Arbitrary<[string, Record<string, Json>]> {
  const ep = EPS[cmd.ep] as Ep;
  const options: Array<fc.Arbitrary<[string, Record<string, Json>]>> = [];
  const fields = { ...ep.required, ...ep.optional };
  const known = new Set([...Object.keys(fields), 'occurredAt', 'expectedVersion']);
  const extraKeyArb = fc
    .oneof(
      fc.constantFrom('foo', 'roundID', 'Card', 'actor', 'role', 'tableId', 'principal', 'stake', 'shoeId', '__proto__', 'constructor', 'prototype', '\u0000', '', ' ', 'card ', 'globalPosition', 'approverId', 'approvedBy'),
      fc.string({ maxLength: 10 }),
    )
    .filter((k) => !known.has(k));
  options.push(fc.tuple(extraKeyArb, fc.oneof(textArb as fc.Arbitrary<Json>, nonStringArb, fc.constant<Json>(null))).map(([k, v]) => [`extra field`, withKey(cmd.body, k, v)]));
  for (const [name, kind] of Object.entries(fields)) {
    // an optional field set to null counts as absent (class-validator's IsOptional): not a defect there
    const bad = Object.hasOwn(ep.optional, name) ? badValueFor(kind).filter((v) => v !== null) : badValueFor(kind);
    options.push(bad.map((v) => [`bad ${name} (${kind})`, withKey(cmd.body, name, v)]));
  }
  for (const name of Object.keys(ep.required)) options.push(fc.constant([`missing ${name}`, without(cmd.body, name)]));
  options.push(badOccurredAtArb.map((v) => ['bad occurredAt', withKey(cmd.body, 'occurredAt', v)]));
  options.push(badExpectedVersionArb.map((v) => ['bad expectedVersion type', withKey(cmd.body, 'expectedVersion', v)]));
  options.push(fc.integer({ min: 17, max: 50_000 }).map((d) => ['nested too deep', withKey(cmd.body, Object.keys(fields)[0] ?? 'occurredAt', deep(d))]));
  if (cmd.ep === 'bet' || cmd.ep === 'batch') {
    const betOf = (b: Record<string, Json>, f: (x: Record<string, Json>) => Record<string, Json>) =>
      cmd.ep === 'bet' ? { ...b, bet: f(b.bet as Record<string, Json>) } : { ...b, bets: (b.bets as Array<Record<string, Json>>).map((x, i) => (i === 0 ? f(x) : x)) };
    options.push(dtoBadStakeArb.map((v) => ['bet stake refused by the DTO', betOf(cmd.body, (x) => ({ ...x, stake: v }))]));
    options.push(badCurrencyArb.map((v) => ['bet currency malformed', betOf(cmd.body, (x) => ({ ...x, currency: v }))]));
    options.push(badBetCodeArb.map((v) => ['bet code malformed', betOf(cmd.body, (x) => ({ ...x, betCode: v }))]));
    options.push(fc.constantFrom('betId', 'accountId').chain((f) => badIdArb.map((v) => [`bet ${f} malformed`, betOf(cmd.body, (x) => ({ ...x, [f]: v }))] as [string, Record<string, Json>])));
    options.push(fc.constantFrom(...Object.keys(BET_FIELDS)).map((f) => [`bet without ${f}`, betOf(cmd.body, (x) => without(x, f))]));
    options.push(extraKeyArb.filter((k) => !Object.prototype.hasOwnProperty.call(BET_FIELDS, k)).map((k) => ['bet with an extra field', betOf(cmd.body, (x) => withKey(x, k, 1))]));
  }
  return fc.oneof(...options);
}

function withKey(o: Record<string, Json>, k: string, v: Json): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [kk, vv] of Object.entries(o)) if (kk !== k) out[kk] = vv;
  Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}
function without(o: Record<string, Json>, k: string): Record<string, Json> {
  const out = { ...o };
  delete out[k];
  return out;
}
function deep(depth: number): Json {
  return new Raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);
}

/** Textual corruptions of a JSON body; kept only if no JSON parser could read the result. */
function malformedJson(text: string): fc.Arbitrary<[string, string]> {
  const readable = (s: string) => {
    const t = s.replace(/^\uFEFF/, '').trim();
    if (!t.startsWith('{') && !t.startsWith('[')) return false;
    try {
      JSON.parse(t);
      return true;
    } catch {
      return false;
    }
  };
  return fc
    .oneof(
      fc.integer({ min: 1, max: Math.max(1, text.length - 1) }).map((n): [string, string] => ['truncated', text.slice(0, n)]),
      fc.constantFrom('x', ',', '}', ']', '{', '"', '\u0000', ' garbage', '}{}').map((g): [string, string] => ['trailing garbage', text + g]),
      fc.constantFrom("'", '`').map((q): [string, string] => ['single quotes', text.replace(/"/g, q)]),
      fc.constantFrom('NaN', 'Infinity', '-Infinity', 'undefined', '0x10', '.5', '+1', '01').map((lit): [string, string] => ['non-JSON literal', text.replace(/\}$/, `${text === '{}' ? '' : ','}"expectedVersion":${lit}}`)]),
      fc.constant<[string, string]>(['comment', `/* c */${text}`]),
      fc.constant<[string, string]>(['trailing comma', text.replace(/\}$/, ',}')]),
      fc.constant<[string, string]>(['unquoted keys', text.replace(/"([A-Za-z]+)":/g, '$1:')]),
      fc.constantFrom('"abc"', '123', 'null', 'true', '"{}"', '{', '[', '{"a":1,}', '{"a"}', '{:1}').map((t): [string, string] => ['not an object', t]),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map((t): [string, string] => ['random text', t]),
    )
    .filter(([, t]) => t.trim().length > 0 && !readable(t));
}

function hostileArb(ctx: Ctx): fc.Arbitrary<Hostile> {
  const { w, bases } = ctx;
  const baseArb = fc.constantFrom(...bases);
  const versionOf = (cmd: Cmd) => (cmd.shoe === 'fresh' ? 0 : w.versions[cmd.shoe]);
  const withRequired = bases.filter((b) => Object.keys(EPS[b.ep].required).length > 0);

  // ---- state-independent defects wrapped around valid commands ----------------------------------
  const wrap: Array<fc.Arbitrary<Hostile>> = [
    fc.tuple(baseArb, fc.constantFrom(...ctx.auths)).map(([cmd, [defect, auth]]) => request('auth', defect, cmd, ctx, { headers: { authorization: auth as string }, expect: E([401], ['AUTH.UNAUTHENTICATED']) })),
    baseArb.chain((cmd) =>
      fc
        .tuple(fc.constantFrom(...ROLES.filter((r) => r !== cmd.role)), fc.constantFrom('x', 'pm-1', DEALER))
        .map(([role, sub]) => request('role', `${role} on a ${cmd.role} route`, cmd, ctx, { headers: { authorization: `Bearer ${ctx.token(role, sub)}` }, expect: E([403], ['AUTH.FORBIDDEN']) })),
    ),
    fc
      .tuple(
        baseArb,
        fc.oneof(
          fc.constant(''),
          fc.constant('   '),
          fc.integer({ min: 129, max: 2000 }).chain((n) => fc.string({ minLength: n, maxLength: n, unit: fc.constantFrom(...'abcXYZ019-_:!~') })),
        ),
      )
      .map(([cmd, key]) => request('idempotency', key.trim() === '' ? 'empty Idempotency-Key' : 'Idempotency-Key over 128 characters', cmd, ctx, { headers: { 'idempotency-key': key }, expect: E([400], ['VALIDATION.FAILED']) })),
    // keys are the caller's own (docs/guarantees.md §3): SETUP_KEY is taken for device-1 and platform-1 only
    fc
      .constantFrom(...bases.filter((b) => SETUP_KEY_CALLERS.includes(`${b.role}:${b.sub}`)))
      .map((cmd) => request('idempotency', 'Idempotency-Key reused for another request', cmd, ctx, { headers: { 'idempotency-key': SETUP_KEY }, expect: E([409], ['IDEMPOTENCY.KEY_REUSED']) })),
    baseArb.chain((cmd) =>
      fc
        .oneof(fc.integer({ min: 0, max: versionOf(cmd) + 500 }), fc.constantFrom(2 ** 31, 2 ** 53 - 1))
        .filter((v) => v !== versionOf(cmd))
        .map((v) => request('expectedVersion', 'stale or future expectedVersion', { ...cmd, body: { ...cmd.body, expectedVersion: v } }, ctx, { expect: E([409], ['STREAM.VERSION_CONFLICT']) })),
    ),
    baseArb.chain((cmd) => fieldDefect(cmd).map(([defect, body]) => request('field', defect, { ...cmd, body }, ctx, { expect: fieldExpectation(cmd, body) }))),
    baseArb.chain((cmd) => malformedJson(toJson(cmd.body)).map(([defect, text]) => request('json', defect, cmd, ctx, { bodyText: text, expect: E([400], ['REQUEST.MALFORMED']) }))),
    baseArb.map((cmd) => request('json', 'body is a JSON array', cmd, ctx, { bodyText: `[${toJson(cmd.body)}]`, expect: E([400]) })),
    fc
      .tuple(fc.constantFrom(...withRequired), fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/jsonx'))
      .map(([cmd, ct]) => request('transport', `content-type ${ct}`, cmd, ctx, { headers: { 'content-type': ct }, expect: E([400]) })),
    fc
      .tuple(fc.constantFrom(...withRequired), fc.constantFrom('a=1&b=2', '__proto__[x]=1', 'constructor[prototype][x]=1', ''))
      .map(([cmd, form]) => request('transport', 'urlencoded body without the fields', cmd, ctx, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, bodyText: form, expect: E([400]) })),
    fc
      .tuple(baseArb, fc.constantFrom('latin1', 'iso-8859-1', 'ascii', 'koi8-r', 'x-unknown', 'binary'))
      .map(([cmd, cs]) => request('transport', `charset ${cs}`, cmd, ctx, { headers: { 'content-type': `application/json; charset=${cs}` }, expect: E([415], ['REQUEST.UNSUPPORTED_MEDIA_TYPE']) })),
    fc.tuple(baseArb, fc.constantFrom('gzip', 'deflate', 'br')).map(([cmd, enc]) =>
      // a compressed body is never inflated (the body limits count bytes on the wire): 415 whatever it holds
      request('transport', `content-encoding ${enc} on a plain body`, cmd, ctx, { headers: { 'content-encoding': enc }, expect: E([415], ['REQUEST.UNSUPPORTED_MEDIA_TYPE']) }),
    ),
    fc
      .tuple(baseArb, fc.constantFrom('zstd', 'compress', 'x-gzip', 'gzip, zstd', 'bogus'))
      .map(([cmd, enc]) => request('transport', `content-encoding ${enc}`, cmd, ctx, { headers: { 'content-encoding': enc }, expect: E([415], ['REQUEST.UNSUPPORTED_MEDIA_TYPE']) })),
    fc.tuple(baseArb, fc.integer({ min: 1, max: 40 })).map(([cmd, cut]) => {
      const gz = gzipSync(Buffer.from(toJson(cmd.body)));
      return request('transport', 'truncated gzip body', cmd, ctx, { headers: { 'content-encoding': 'gzip' }, body: gz.subarray(0, Math.max(1, gz.length - cut)), expect: E([415], ['REQUEST.UNSUPPORTED_MEDIA_TYPE']) });
    }),
    fc.tuple(baseArb, pathIdArb).map(([cmd, id]) => request('path', 'hostile path id', cmd, ctx, { path: withShoe(cmd, id), expect: E([400, 404], ['VALIDATION.FAILED', 'REQUEST.MALFORMED', 'ROUTE.NOT_FOUND']) })),
    fc
      .tuple(baseArb, unknownIdArb)
      .map(([cmd, id]) =>
        cmd.ep === 'openShoe'
          ? request('state', 'unknown table', cmd, ctx, { path: withShoe(cmd, id), expect: E([404], ['TABLE.UNKNOWN']) })
          : request('state', 'unknown shoe', cmd, ctx, { path: withShoe(cmd, id), expect: E([404], ['SHOE.NOT_FOUND']) }),
      ),
    fc.tuple(baseArb, fc.constantFrom('PUT', 'PATCH', 'DELETE')).map(([cmd, m]) => request('path', `method ${m}`, cmd, ctx, { method: m, expect: E([404], ['ROUTE.NOT_FOUND']) })),
    fc
      .tuple(baseArb, fc.constantFrom('/x', '/..%2Fvoid', '/batch/x', '/%00', '/events'))
      .map(([cmd, suffix]) => request('path', 'unknown route', cmd, ctx, { path: cmd.path + suffix, expect: E([400, 404], ['ROUTE.NOT_FOUND', 'VALIDATION.FAILED']) })),
  ];

  // ---- impossible facts: DTO-valid commands that the shoe's state refuses ------------------------
  const S = w.ids;
  const dev = (ep: EpKey, shoe: ShoeKey, body: Record<string, Json>, round = 'r1'): Cmd => ({ ep, role: 'table-device', sub: 'device-1', path: pathOf(ep, S[shoe], round), body, shoe });
  const pm = (ep: EpKey, shoe: ShoeKey, body: Record<string, Json>, round = 'r1', sub = 'pm-1'): Cmd => ({ ep, role: 'pit-manager', sub, path: pathOf(ep, S[shoe], round), body, shoe });
  const bp = (shoe: ShoeKey, bets: Array<Record<string, Json>>, round = 'r1', single = false): Cmd =>
    single
      ? { ep: 'bet', role: 'betting-platform', sub: 'platform-1', path: pathOf('bet', S[shoe], round), body: { bet: bets[0] }, shoe }
      : { ep: 'batch', role: 'betting-platform', sub: 'platform-1', path: pathOf('batch', S[shoe], round), body: { bets }, shoe };
  const card = fc.constantFrom(...CARDS, '10H', 'th', '9s');
  const cardNotGone = fc.constantFrom(...NOT_GONE);
  const cardOrNull = fc.oneof(card, fc.constant(null));
  const pos = fc.constantFrom(...POSITIONS);
  const newId = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,20}$/).map((s) => `q-${s}`);
  const reason = fc.constantFrom('dealer misdealt', 'card flashed', 'scanner misread the card', 'réclamation du joueur 🂡', 'a\nmulti-line\treason');
  const goodDecision = reason.map((r) => ({ reason: r }));
  /** A decision request the rules refuse whatever the round: the dealer requesting, a blank reason. */
  const badDecision = fc.oneof(
    reason.map((r) => ({ sub: DEALER, body: { reason: r }, code: 'MANAGEMENT.DEALER_CANNOT_DECIDE' })),
    fc.constantFrom('   ', ' \t\n ', '\n\n\n', '\u200b\u200b\u200b', 'a\u200b\u2060b').map((r) => ({ sub: 'pm-1', body: { reason: r }, code: 'MANAGEMENT.REASON_REQUIRED' })),
  );
  /** An act on the PENDING shoe's decision (or on `decisionId`) by `sub`. */
  const act = (ep: 'approve' | 'reject', sub: string, body: Record<string, Json>, decisionId = w.pendingDecision): Cmd => ({ ep, role: 'pit-manager', sub, path: pathOf(ep, decisionId), body, shoe: 'PENDING' });
  const remark = fc.oneof(
    fc.constant<Record<string, Json>>({}),
    reason.map((r) => ({ reason: r })),
  );
  /** An approval or rejection the rules refuse: by the requester (pm-1), by the dealer of the round, a blank rejection. */
  const badAct = fc.oneof(
    remark.map((b) => ({ cmd: act('approve', 'pm-1', b), defect: 'approval: MANAGEMENT.SAME_APPROVER', code: 'MANAGEMENT.SAME_APPROVER' })),
    remark.map((b) => ({ cmd: act('approve', DEALER, b), defect: 'approval: MANAGEMENT.DEALER_CANNOT_DECIDE', code: 'MANAGEMENT.DEALER_CANNOT_DECIDE' })),
    reason.map((r) => ({ cmd: act('reject', 'pm-1', { reason: r }), defect: 'rejection: MANAGEMENT.SAME_APPROVER', code: 'MANAGEMENT.SAME_APPROVER' })),
    fc.constantFrom('   ', ' \t\n ', '\n\n\n', '\u200b\u200b\u200b', 'a\u200b\u2060b').map((r) => ({ cmd: act('reject', 'pm-2', { reason: r }), defect: 'rejection with a blank reason', code: 'MANAGEMENT.REASON_REQUIRED' })),
  );
  const validBet = fc.record({
    betId: newId,
    accountId: fc.constantFrom('v-acct-1', 'v-acct-2', 'v-acct-3'),
    betCode: fc.constantFrom('PLAYER', 'BANKER', 'TIE'),
    stake: fc.oneof(
      fc.integer({ min: 100, max: 1000 }).map((n) => String(n)),
      fc.integer({ min: 100, max: 1000 }),
    ),
    currency: fc.constant('EUR'),
  });
  const classicCode = fc.constantFrom(...CLASSIC_CODES);
  /** One bet with exactly one state defect, and the code that refuses it (decide's check order). */
  const badBet: fc.Arbitrary<{ bet: Record<string, Json>; code: string; defect: string }> = fc.oneof(
    fc
      .tuple(newId, fc.constantFrom('PLAYER', 'BANKER', 'TIE'), fc.oneof(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 99 }).map(String), fc.constant(new Raw('1.0')), fc.constant(new Raw('1.5e1'))))
      .map(([id, code, stake]) => ({
        bet: { betId: id, accountId: 'lim-acct', betCode: code, stake, currency: 'EUR' },
        code: 'BET.BELOW_MINIMUM',
        defect: 'stake below the table minimum',
      })),
    fc.tuple(newId, classicCode, fc.bigInt({ min: 0n, max: MAX_SAFE - 1000001n })).map(([id, code, extra]) => ({
      bet: { betId: id, accountId: 'lim-acct', betCode: code, stake: (CLASSIC_MAX[code] + 1n + extra).toString(), currency: 'EUR' },
      code: 'BET.ABOVE_MAXIMUM',
      defect: 'stake above the table maximum',
    })),
    fc.tuple(newId, fc.constantFrom<Json>(new Raw('1e7'), new Raw('1E9'), 1e15, '9007199254740991')).map(([id, stake]) => ({
      bet: { betId: id, accountId: 'lim-acct', betCode: 'PLAYER', stake, currency: 'EUR' },
      code: 'BET.ABOVE_MAXIMUM',
      defect: 'exponent or huge stake above the maximum',
    })),
    fc.tuple(newId, fc.constantFrom<Json>('0', '00', '000000', 0, new Raw('-0'), new Raw('0e5'), (2n ** 53n).toString(), (2n ** 63n).toString(), (2n ** 64n + 1n).toString(), '9'.repeat(30))).map(([id, stake]) => ({
      bet: { betId: id, accountId: 'lim-acct', betCode: 'BANKER', stake, currency: 'EUR' },
      code: 'MONEY.INVALID_STAKE',
      defect: 'stake zero or beyond 2^53-1 (2^63 included)',
    })),
    fc.tuple(newId, fc.constantFrom('USD', 'GBP', 'XXX', 'EUS', 'JPY')).map(([id, cur]) => ({
      bet: { betId: id, accountId: 'lim-acct', betCode: 'PLAYER', stake: '500', currency: cur },
      code: 'BET.CURRENCY_MISMATCH',
      defect: 'wrong currency',
    })),
    fc.tuple(newId, fc.constantFrom('FOO', 'TIGER', 'PLAYER_FABULOUS_4', 'BANKERS', 'SMALL_TIGER', 'X', '__PROTO__', 'CONSTRUCTOR')).map(([id, c]) => ({
      bet: { betId: id, accountId: 'lim-acct', betCode: c, stake: '500', currency: 'EUR' },
      code: 'BET.UNKNOWN_CODE',
      defect: 'unknown bet code',
    })),
    fc.tuple(newId, fc.constantFrom('PLAYER_PAIR', 'BANKER_PAIR', 'EITHER_PAIR')).map(([id, c]) => ({
      bet: { betId: id, accountId: 'pair-acct', betCode: c, stake: '500', currency: 'EUR' },
      code: 'BET.PAIR_NEEDS_MAIN_BET',
      defect: 'pair bet without a main bet',
    })),
    fc.constant({ bet: { betId: `${S.BET}.b-existing`, accountId: 'a9', betCode: 'PLAYER', stake: '500', currency: 'EUR' }, code: 'BET.DUPLICATE_ID', defect: 'bet id already used' }),
  );
  const betsWith = (bad: fc.Arbitrary<{ bet: Record<string, Json>; code: string; defect: string }>) =>
    fc.tuple(fc.array(validBet, { maxLength: 6 }), bad, fc.nat()).map(([ok, b, at]) => {
      const uniq = ok.map((x, i) => ({ ...x, betId: `ok-${i}-${x.betId}`.slice(0, 64) }));
      const i = at % (uniq.length + 1);
      return { bets: [...uniq.slice(0, i), b.bet, ...uniq.slice(i)], code: b.code, defect: b.defect, single: uniq.length === 0 && at % 2 === 0 };
    });
  /** The code is asserted; the status is whatever error-status.ts maps it to (404, 409 or 422). */
  const st = (defect: string, cmdArb: fc.Arbitrary<Cmd>, code: string | string[], status?: number) =>
    cmdArb.map((cmd) => request('state', defect, cmd, ctx, { expect: { status: status === 404 ? [404] : [404, 409, 422], code: Array.isArray(code) ? code : [code] } }));
  const any = <T>(...xs: T[]) => fc.constantFrom(...xs);

  const tableFacts = (shoe: ShoeKey, round = 'r1'): fc.Arbitrary<Cmd> =>
    fc.oneof(
      card.map((c) => dev('commence', shoe, { card: c })),
      cardOrNull.map((c) => dev('burn', shoe, { card: c })),
      newId.map((id) => dev('openRound', shoe, { roundId: id })),
      fc.constant(dev('closeBetting', shoe, {}, round)),
      fc.tuple(pos, card).map(([p, c]) => dev('deal', shoe, { position: p, card: c }, round)),
      card.map((c) => dev('unneeded', shoe, { card: c }, round)),
      card.map((c) => dev('expose', shoe, { card: c })),
      fc.tuple(cardOrNull, fc.boolean(), fc.constantFrom(undefined, 'SHUFFLE', 'SCOOPING')).map(([c, e, p]) => dev('drop', shoe, p ? { card: c, exposedBeforeLeavingView: e, phase: p } : { card: c, exposedBeforeLeavingView: e })),
      fc.constant(dev('cutCard', shoe, {})),
      newId.map((id) => dev('dealer', shoe, { dealerId: id })),
      fc.constant(dev('close', shoe, {})),
    );

  const state: Array<fc.Arbitrary<Hostile>> = [
    // betting open (BET)
    st(
      'bet outside limits, currency, code, pair rule or id',
      betsWith(badBet).map((b) => bp('BET', b.bets, 'r1', b.single)),
      ['BET.BELOW_MINIMUM', 'BET.ABOVE_MAXIMUM', 'MONEY.INVALID_STAKE', 'BET.CURRENCY_MISMATCH', 'BET.UNKNOWN_CODE', 'BET.PAIR_NEEDS_MAIN_BET', 'BET.DUPLICATE_ID'],
    ),
    betsWith(badBet).map((b) => request('state', b.defect, bp('BET', b.bets, 'r1', b.single), ctx, { expect: E([409, 422], [b.code]) })),
    fc.tuple(validBet, validBet).map(([a, b]) => request('state', 'same bet id twice in a batch', bp('BET', [a, { ...b, betId: a.betId }]), ctx, { expect: E([409, 422], ['BET.DUPLICATE_ID']) })),
    st(
      'bet on a voided earlier round',
      validBet.map((b) => bp('BET', [b], 'r0')),
      'ROUND.NOT_CURRENT',
      409,
    ),
    st(
      'bet on an unknown round',
      fc.tuple(validBet, newId).map(([b, r]) => bp('BET', [b], r)),
      'ROUND.NOT_FOUND',
      404,
    ),
    st(
      'card while bets are open',
      fc.tuple(pos, card).map(([p, c]) => dev('deal', 'BET', { position: p, card: c })),
      'ROUND.BETTING_OPEN',
      409,
    ),
    st(
      'second commencement card',
      card.map((c) => dev('commence', 'BET', { card: c })),
      'COMMENCEMENT.ALREADY_DRAWN',
      409,
    ),
    st(
      'burn beyond the commencement count',
      cardOrNull.map((c) => dev('burn', 'BET', { card: c })),
      'COMMENCEMENT.BURN_COUNT_EXCEEDED',
      422,
    ),
    st(
      'round while a round is open',
      newId.map((id) => dev('openRound', 'BET', { roundId: id })),
      'ROUND.IN_PROGRESS',
      409,
    ),
    st('close betting of an earlier round', fc.constant(dev('closeBetting', 'BET', {}, 'r0')), 'ROUND.NOT_CURRENT', 409),
    st(
      'unneeded card while bets are open',
      card.map((c) => dev('unneeded', 'BET', { card: c })),
      'ROUND.NOT_DEALING',
      409,
    ),
    st('a ninth KH exposed', fc.constant(dev('expose', 'BET', { card: GONE })), 'SHOE.CARD_EXCEEDS_DECKS', 422),
    st(
      'card exposed in shuffle after commencement',
      card.map((c) => dev('expose', 'BET', { card: c, phase: 'SHUFFLE' })),
      'CARD.WRONG_PHASE',
      409,
    ),
    st(
      'dropped card while bets are open, no scooping',
      fc.tuple(cardOrNull, fc.boolean(), any(undefined, 'SHUFFLE')).map(([c, e, p]) => dev('drop', 'BET', p ? { card: c, exposedBeforeLeavingView: e, phase: p } : { card: c, exposedBeforeLeavingView: e })),
      'CARD.WRONG_PHASE',
      409,
    ),
    st('dealer changed to the same dealer', fc.constant(dev('dealer', 'BET', { dealerId: DEALER })), 'DEALER.UNCHANGED', 409),
    st('shoe closed while a round is open', fc.constant(dev('close', 'BET', {})), 'ROUND.IN_PROGRESS', 409),
    badDecision.map((d) => request('state', `void: ${d.code}`, pm('voidRound', 'BET', d.body, 'r1', d.sub), ctx, { expect: E([422], [d.code]) })),
    badDecision.map((d) => request('state', `shoe void: ${d.code}`, pm('voidShoe', 'BET', d.body, 'r1', d.sub), ctx, { expect: E([422], [d.code]) })),
    st(
      'void of a round already voided',
      goodDecision.map((d) => pm('voidRound', 'BET', d, 'r0')),
      'ROUND.ALREADY_VOIDED',
      409,
    ),
    st(
      'void of an unknown round',
      fc.tuple(goodDecision, newId).map(([d, r]) => pm('voidRound', 'BET', d, r)),
      'ROUND.NOT_FOUND',
      404,
    ),
    st(
      'correction of a round without a result',
      fc.tuple(goodDecision, fc.array(cardNotGone, { minLength: 4, maxLength: 6 })).map(([d, cs]) => pm('correct', 'BET', { ...d, cards: cs })),
      'ROUND.NOT_RESULTED',
      409,
    ),
    st(
      'commencement correction with a blank reason',
      card.map((c) => pm('correctCommencement', 'BET', { card: c, reason: '    ' })),
      ['COMMENCEMENT.REASON_REQUIRED', 'MANAGEMENT.REASON_REQUIRED'],
      422,
    ),
    // dealing (DEAL): B1 is next, KH is gone
    st(
      'card at a position the tableau forbids',
      fc.tuple(any('P1', 'P2', 'B2', 'P3', 'B3'), card).map(([p, c]) => dev('deal', 'DEAL', { position: p, card: c })),
      'TABLEAU.VIOLATION',
      422,
    ),
    st('a ninth KH dealt', fc.constant(dev('deal', 'DEAL', { position: 'B1', card: GONE })), 'SHOE.CARD_EXCEEDS_DECKS', 422),
    st('a ninth KH drawn unneeded', fc.constant(dev('unneeded', 'DEAL', { card: GONE })), 'SHOE.CARD_EXCEEDS_DECKS', 422),
    st('a ninth KH exposed while dealing', fc.constant(dev('expose', 'DEAL', { card: GONE })), 'SHOE.CARD_EXCEEDS_DECKS', 422),
    st('a ninth KH dropped unseen while dealing', fc.constant(dev('drop', 'DEAL', { card: GONE, exposedBeforeLeavingView: false })), 'SHOE.CARD_EXCEEDS_DECKS', 422),
    st(
      'dropped card in a phase it cannot be in',
      fc.tuple(cardOrNull, fc.boolean(), any('SHUFFLE', 'SCOOPING')).map(([c, e, p]) => dev('drop', 'DEAL', { card: c, exposedBeforeLeavingView: e, phase: p })),
      'CARD.WRONG_PHASE',
      409,
    ),
    st(
      'bet after betting closed',
      validBet.map((b) => bp('DEAL', [b], 'r1', true)),
      'ROUND.BETTING_CLOSED',
      409,
    ),
    st(
      'batch after betting closed',
      fc.array(validBet, { minLength: 1, maxLength: 5 }).map((bs) =>
        bp(
          'DEAL',
          bs.map((b, i) => ({ ...b, betId: `c${i}-${b.betId}`.slice(0, 64) })),
        ),
      ),
      'ROUND.BETTING_CLOSED',
      409,
    ),
    st('betting closed twice', fc.constant(dev('closeBetting', 'DEAL', {})), 'ROUND.BETTING_CLOSED', 409),
    st(
      'dealer change mid-dealing',
      newId.map((id) => dev('dealer', 'DEAL', { dealerId: id })),
      'DEALER.CHANGE_MID_DEALING',
      409,
    ),
    st(
      'commencement corrected after the first hand',
      fc.tuple(card, reason).map(([c, r]) => pm('correctCommencement', 'DEAL', { card: c, reason: r })),
      'COMMENCEMENT.TOO_LATE',
      409,
    ),
    st(
      'round opened while dealing',
      newId.map((id) => dev('openRound', 'DEAL', { roundId: id })),
      'ROUND.IN_PROGRESS',
      409,
    ),
    badDecision.map((d) => request('state', `void while dealing: ${d.code}`, pm('voidRound', 'DEAL', d.body, 'r1', d.sub), ctx, { expect: E([422], [d.code]) })),
    // between rounds (IDLE): r1 resulted with a natural
    st(
      'card after the round is resulted',
      fc.tuple(pos, card).map(([p, c]) => dev('deal', 'IDLE', { position: p, card: c })),
      'TABLEAU.VIOLATION',
      422,
    ),
    st(
      'bet on a resulted round',
      validBet.map((b) => bp('IDLE', [b], 'r1', true)),
      'ROUND.BETTING_CLOSED',
      409,
    ),
    st('a ninth KH drawn after the result', fc.constant(dev('unneeded', 'IDLE', { card: GONE })), 'SHOE.CARD_EXCEEDS_DECKS', 422),
    st('reused round id', fc.constant(dev('openRound', 'IDLE', { roundId: `${S.IDLE}.r1` })), 'ROUND.DUPLICATE_ID', 409),
    // closed shoe: every table fact and bet refused; decisions only with a defect
    st('table fact on a closed shoe', tableFacts('CLOSED'), 'SHOE.CLOSED', 409),
    st(
      'bet on a closed shoe',
      validBet.map((b) => bp('CLOSED', [b])),
      'SHOE.CLOSED',
      409,
    ),
    st(
      'commencement corrected on a closed shoe',
      fc.tuple(card, reason).map(([c, r]) => pm('correctCommencement', 'CLOSED', { card: c, reason: r })),
      'SHOE.CLOSED',
      409,
    ),
    badDecision.map((d) => request('state', `correction: ${d.code}`, pm('correct', 'CLOSED', { ...d.body, cards: ['8S', '4S', 'KD', '3D'] }, 'r1', d.sub), ctx, { expect: E([422], [d.code]) })),
    badDecision.map((d) => request('state', `void of a closed shoe: ${d.code}`, pm('voidShoe', 'CLOSED', d.body, 'r1', d.sub), ctx, { expect: E([422], [d.code]) })),
    st(
      'correction to the cards already in force',
      goodDecision.map((d) => pm('correct', 'CLOSED', { ...d, cards: ['9S', '4S', 'KD', '3D'] })),
      'RESULT.UNCHANGED',
      409,
    ),
    st(
      'correction with a ninth KH',
      goodDecision.map((d) => pm('correct', 'CLOSED', { ...d, cards: ['9S', '4S', GONE, '3D'] })),
      'SHOE.CARD_EXCEEDS_DECKS',
      422,
    ),
    st(
      'correction with cards the tableau forbids',
      fc.tuple(goodDecision, any(['9S', '4S', 'KD', '3D', '5C'], ['2S', '3S', '2H', '3H'], ['9S', '9H', 'KD', 'KS', '2C', '2D'])).map(([d, cs]) => pm('correct', 'CLOSED', { ...d, cards: cs })),
      ['TABLEAU.VIOLATION', 'TABLEAU.INSUFFICIENT_CARDS'],
      422,
    ),
    // voided shoe: even valid decisions are refused
    st('table fact on a voided shoe', tableFacts('VOIDED'), 'SHOE.VOIDED', 409),
    st(
      'bet on a voided shoe',
      validBet.map((b) => bp('VOIDED', [b], 'r1', true)),
      'SHOE.VOIDED',
      409,
    ),
    st(
      'shoe voided twice',
      goodDecision.map((d) => pm('voidShoe', 'VOIDED', d)),
      'SHOE.ALREADY_VOIDED',
      409,
    ),
    st(
      'round voided twice',
      goodDecision.map((d) => pm('voidRound', 'VOIDED', d)),
      'ROUND.ALREADY_VOIDED',
      409,
    ),
    st(
      'correction of a voided round',
      goodDecision.map((d) => pm('correct', 'VOIDED', { ...d, cards: ['8S', '4S', 'KD', '3D'] })),
      'ROUND.ALREADY_VOIDED',
      409,
    ),
    // the second pair of eyes: a pending decision approved or rejected by someone who may not, or an unknown one
    badAct.map((b) => request('state', b.defect, b.cmd, ctx, { expect: E([422], [b.code]) })),
    fc
      .tuple(fc.constantFrom<'approve' | 'reject'>('approve', 'reject'), unknownIdArb, reason)
      .map(([ep, id, r]) => request('state', `${ep === 'approve' ? 'approval' : 'rejection'} of an unknown decision`, act(ep, 'pm-2', { reason: r }, id), ctx, { expect: E([404], ['DECISION.NOT_FOUND']) })),
    // a request of the pending decision's target again: one decision at a time
    goodDecision.map((d) => request('state', 'void of a round whose void awaits approval', pm('voidRound', 'PENDING', d, 'r1', 'pm-3'), ctx, { expect: E([409, 422], ['DECISION.ALREADY_PENDING']) })),
    // side bets past their window (hand 61 of non-virtual shoes)
    st(
      'Tiger side bet outside its window',
      fc.tuple(newId, any(...TIGER_WINDOW), fc.integer({ min: 100, max: 20000 })).map(([id, c, s]) => bp('TIGER', [{ betId: id, accountId: 'a1', betCode: c, stake: String(s), currency: 'EUR' }], 'r61', true)),
      'BET.OUTSIDE_WINDOW',
      422,
    ),
    st(
      'Fabulous Pair outside its window',
      fc.tuple(newId, any(...FAB4_WINDOW), fc.integer({ min: 100, max: 20000 })).map(([id, c, s]) => bp('FAB4', [{ betId: id, accountId: 'a1', betCode: c, stake: s, currency: 'EUR' }], 'r61')),
      'BET.OUTSIDE_WINDOW',
      422,
    ),
    st(
      'classic pair bet on a Tiger table',
      fc.tuple(newId, any('PLAYER_PAIR', 'EITHER_PAIR', 'PLAYER_FABULOUS_4')).map(([id, c]) => bp('TIGER', [{ betId: id, accountId: 'a1', betCode: c, stake: '500', currency: 'EUR' }], 'r61', true)),
      'BET.UNKNOWN_CODE',
      422,
    ),
    // unknown shoe, unknown table, a shoe id already taken
    fc.tuple(tableFacts('BET'), unknownIdArb).map(([cmd, id]) => request('state', 'table fact on an unknown shoe', cmd, ctx, { path: withShoe(cmd, id), expect: E([404], ['SHOE.NOT_FOUND']) })),
    fc
      .tuple(
        newId,
        unknownIdArb.map((t) => t.toUpperCase()),
        any('t-classic-01', 'T-CLASSIC-1', 'T-CLASSIC-01 ', 'T-CLASSIC-02', 'T-TIGER-V02'),
      )
      .map(([id, t, lookalike]) =>
        request(
          'state',
          'shoe on an unknown table',
          { ep: 'openShoe', role: 'table-device', sub: 'device-1', path: `/tables/${encodeURIComponent(id.length % 2 ? t : lookalike)}/shoes`, body: { shoeId: id, dealerId: DEALER }, shoe: 'fresh' },
          ctx,
          {
            expect: E([400, 404], ['TABLE.UNKNOWN', 'VALIDATION.FAILED']),
          },
        ),
      ),
    any<ShoeKey>('BET', 'DEAL', 'IDLE', 'CLOSED', 'VOIDED').map((k) =>
      request('state', 'shoe id already opened', { ep: 'openShoe', role: 'table-device', sub: 'device-1', path: '/tables/T-CLASSIC-01/shoes', body: { shoeId: S[k], dealerId: DEALER }, shoe: k }, ctx, {
        expect: E([409], ['SHOE.ALREADY_OPENED']),
      }),
    ),
    any<ShoeKey>('TIGER', 'FAB4', 'BET').map((k) =>
      request(
        'state',
        'shoe id of another table',
        { ep: 'openShoe', role: 'table-device', sub: 'device-1', path: `/tables/${k === 'BET' ? 'T-TIGER-01' : 'T-CLASSIC-01'}/shoes`, body: { shoeId: S[k], dealerId: DEALER }, shoe: k },
        ctx,
        { expect: E([404], ['SHOE.NOT_FOUND']) },
      ),
    ),
  ];

  // field defects on commands that would be refused by state anyway: still 400 first
  const stateCmds = fc.oneof(
    tableFacts('BET'),
    tableFacts('DEAL'),
    tableFacts('CLOSED'),
    tableFacts('VOIDED'),
    validBet.map((b) => bp('BET', [b], 'r1', true)),
    validBet.map((b) => bp('DEAL', [b])),
    goodDecision.map((d) => pm('voidShoe', 'VOIDED', d)),
  );
  // approvals and rejections of the pending decision by its requester: a field defect must refuse them first (the domain would too)
  const actCmds = fc.oneof(
    remark.map((b) => act('approve', 'pm-1', b)),
    reason.map((r) => act('reject', 'pm-1', { reason: r })),
  );
  const fieldOnState = fc.oneof(stateCmds, actCmds).chain((cmd) => fieldDefect(cmd).map(([defect, body]) => request('field', defect, { ...cmd, body }, ctx, { expect: fieldExpectation(cmd, body) })));
  // the approver named in a body, as one manager alone once could: refused as a field, on the request and on the approval
  const decisionBases = ctx.bases.filter((b) => b.role === 'pit-manager');
  const approverInBody = fc.oneof(
    fc
      .tuple(fc.constantFrom(...decisionBases), fc.constantFrom('pm-2', 'nobody-at-all', 'PM-1', DEALER))
      .map(([cmd, who]) => request('field', 'approverId in the body of a decision request', { ...cmd, body: { ...cmd.body, approverId: who } }, ctx, { expect: E([400], ['VALIDATION.FAILED']) })),
    fc
      .tuple(remark, fc.constantFrom('pm-2', 'pm-3', 'nobody-at-all'))
      .map(([b, who]) => request('field', 'approverId in the body of an approval', act('approve', 'pm-1', { ...b, approverId: who }), ctx, { expect: E([400], ['VALIDATION.FAILED']) })),
  );

  // auth, roles and field defects weigh more: they are the most varied
  const wrapWeights = [5, 4, 2, 1, 2, 4, 2, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1];
  expect(wrapWeights).toHaveLength(wrap.length);
  const wrapped = fc.oneof(...wrap.map((arbitrary, i) => ({ arbitrary, weight: wrapWeights[i] })));
  return fc.oneof({ arbitrary: wrapped, weight: 45 }, { arbitrary: fc.oneof(...state), weight: 40 }, { arbitrary: fieldOnState, weight: 13 }, { arbitrary: approverInBody, weight: 2 });
}

/** A few fixed requests too big to draw at random: bodies over the 5 MB limit, a batch of 10,001 bets. */
function fixedRequests(ctx: Ctx): Hostile[] {
  const bet = ctx.bases.find((b) => b.ep === 'batch')!;
  const one = { betId: 'x', accountId: 'a', betCode: 'PLAYER', stake: '100', currency: 'EUR' };
  const out: Hostile[] = [];
  for (const size of [5 * 1024 * 1024 + 1, 6 * 1024 * 1024]) {
    out.push(request('transport', 'body over 5 MB', bet, ctx, { bodyText: JSON.stringify({ bets: [{ ...one, betId: 'x'.repeat(size) }] }), expect: E([413], ['REQUEST.TOO_LARGE']) }));
  }
  out.push(request('field', 'batch of 10,001 bets', bet, ctx, { bodyText: JSON.stringify({ bets: Array.from({ length: 10_001 }, (_, i) => ({ ...one, betId: `big-${i}` })) }), expect: E([400], ['VALIDATION.FAILED']) }));
  out.push(
    request('state', 'batch of 10,000 bets, the last one refused', bet, ctx, {
      bodyText: JSON.stringify({ bets: Array.from({ length: 10_000 }, (_, i) => ({ ...one, betId: `big-${i}`, accountId: `acct-${i}`, currency: i === 9_999 ? 'USD' : 'EUR' })) }),
      expect: E([422], ['BET.CURRENCY_MISMATCH']),
    }),
  );
  return out;
}

// ------------------------------------------------------------------------------------------------
// Firing
// ------------------------------------------------------------------------------------------------

interface Outcome {
  r: Hostile;
  status: number;
  code?: string;
  text: string;
  clientError?: string;
}

async function fire(baseUrl: string, r: Hostile): Promise<Outcome> {
  try {
    const res = await fetch(`${baseUrl}${r.path}`, { method: r.method, headers: r.headers, body: r.body, signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    let code: string | undefined;
    try {
      const parsed = JSON.parse(text);
      code = typeof parsed?.error?.code === 'string' ? parsed.error.code : undefined;
    } catch {
      code = undefined;
    }
    return { r, status: res.status, code, text };
  } catch (e) {
    return { r, status: 0, text: '', clientError: String((e as Error)?.message ?? e) };
  }
}

function describeRequest(o: Outcome): string {
  const body = o.r.body === undefined ? '' : Buffer.isBuffer(o.r.body) ? `<${o.r.body.length} bytes>` : JSON.stringify(o.r.body.length > 200 ? `${o.r.body.slice(0, 200)}…(${o.r.body.length})` : o.r.body);
  const path = o.r.path.length > 120 ? `${o.r.path.slice(0, 120)}…` : o.r.path;
  return `[${o.r.family}: ${o.r.defect}] ${o.r.method} ${path} ${body} → ${o.status} ${o.code ?? ''} ${o.clientError ?? o.text.slice(0, 200)}`;
}

function tally<T>(xs: T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

// ------------------------------------------------------------------------------------------------
// The spec
// ------------------------------------------------------------------------------------------------

/** A private database on the test server, so global counts are not moved by other suites. */
function privateDatabase(): { url: string; name: string; adminUrl: string; owner: string } {
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://ledger:ledger@127.0.0.1:5432/ledger_test');
  const name = `${base.pathname.slice(1).replace(/[^a-z0-9_]/g, '_')}_hostile_${process.pid}_${Date.now().toString(36)}`.toLowerCase().slice(0, 63);
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  const admin = new URL(process.env.TEST_ADMIN_DATABASE_URL ?? `postgres://postgres@${base.host}/postgres`);
  admin.pathname = '/postgres';
  return { url: url.toString(), name, adminUrl: admin.toString(), owner: decodeURIComponent(base.username) };
}

async function admin(adminUrl: string, sql: string): Promise<void> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

interface Snapshot {
  head: string;
  maxPosition: string | null;
  events: number;
  outbox: number;
  idempotencyKeys: number;
  rejections: number;
  rejectionMaxId: string;
  versions: Record<ShoeKey, number>;
  unknownShoeVersion: number;
}

async function snapshot(h: LedgerHarness, w: World): Promise<Snapshot> {
  const [row] = await h.ds.query(
    `SELECT pg_sequence_last_value('events_global_position_seq')::text AS head,
            (SELECT max(global_position)::text FROM events) AS max_position,
            (SELECT count(*)::int FROM events) AS events,
            (SELECT count(*)::int FROM outbox) AS outbox,
            (SELECT count(*)::int FROM idempotency_keys) AS keys,
            (SELECT count(*)::int FROM rejections) AS rejections,
            (SELECT coalesce(max(id), 0)::text FROM rejections) AS rejection_max_id`,
  );
  const versions = {} as Record<ShoeKey, number>;
  for (const k of SHOE_KEYS) versions[k] = await h.store.streamVersion(`shoe-${w.ids[k]}`);
  return {
    head: row.head,
    maxPosition: row.max_position,
    events: row.events,
    outbox: row.outbox,
    idempotencyKeys: row.keys,
    rejections: row.rejections,
    rejectionMaxId: row.rejection_max_id,
    versions,
    unknownShoeVersion: await h.store.streamVersion(`shoe-${w.unknownShoe}`),
  };
}

describe('hostile input through the HTTP API (docs/guarantees.md §11 and §12)', () => {
  let h: LedgerHarness;
  let runId: (p: string) => string;
  let db: ReturnType<typeof privateDatabase>;
  let ctx: Ctx;

  beforeAll(async () => {
    db = privateDatabase();
    await admin(db.adminUrl, `CREATE DATABASE ${db.name} OWNER ${db.owner}`);
    process.env.TEST_DATABASE_URL = db.url;
    const harness = await import('../support/ledger-harness');
    runId = harness.runId;
    h = await harness.startLedger();
    const { jwtSecret } = await import('@ledger/tokens');

    const ids = {} as Record<ShoeKey, string>;
    for (const k of SHOE_KEYS) ids[k] = runId(`hx-${k.toLowerCase()}`);
    let pendingDecision = '';
    for (const k of SHOE_KEYS) pendingDecision = (await buildShoe(h, k, ids[k], k === 'BET' ? SETUP_KEY : undefined)) ?? pendingDecision;
    expect(pendingDecision).not.toBe('');
    const w: World = { ids, versions: {} as Record<ShoeKey, number>, unknownShoe: runId('hx-none'), pendingDecision };
    for (const k of SHOE_KEYS) w.versions[k] = await h.store.streamVersion(`shoe-${ids[k]}`);
    const token = (role: Role, sub: string) => h.client.token(role, sub);
    ctx = { w, bases: validBases(w), token, auths: badAuthorizations(jwtSecret(), token) };
  });

  afterAll(async () => {
    await h?.close();
    if (db) await admin(db.adminUrl, `DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`).catch(() => undefined);
  });

  it(`refuses ${RUNS}+ generated malformed or impossible writes (seed ${SEED}): 4xx with a code, each logged, nothing recorded`, async () => {
    const { w } = ctx;
    const requests = [...fixedRequests(ctx), ...fc.sample(hostileArb(ctx), { seed: SEED, numRuns: RUNS })];
    // One request whose path names the unknown shoe, so its (empty) stream is checked too.
    requests.push(request('state', 'unknown shoe', ctx.bases[0], ctx, { path: withShoe(ctx.bases[0], w.unknownShoe), expect: E([404], ['SHOE.NOT_FOUND']) }));
    const before = await snapshot(h, w);
    const chainsBefore = await Promise.all(SHOE_KEYS.map((k) => h.store.verifyChain(`shoe-${w.ids[k]}`)));

    const started = Date.now();
    const outcomes: Outcome[] = new Array(requests.length);
    let next = 0;
    let timedOut = false;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) {
          if (Date.now() - started > DEADLINE_MS) {
            timedOut = true;
            return;
          }
          const i = next++;
          outcomes[i] = await fire(h.baseUrl, requests[i]);
        }
      }),
    );
    const elapsedMs = Date.now() - started;
    const done = outcomes.filter(Boolean);
    const after = await snapshot(h, w);
    const chainsAfter = await Promise.all(SHOE_KEYS.map((k) => h.store.verifyChain(`shoe-${w.ids[k]}`)));
    const logged: Array<{ code: string; http_status: number; n: number }> = await h.ds.query(`SELECT code, http_status, count(*)::int AS n FROM rejections WHERE id > $1 GROUP BY code, http_status`, [before.rejectionMaxId]);

    const reached = done.filter((o) => o.status > 0);
    const summary = {
      seed: SEED,
      requests: done.length,
      seconds: +(elapsedMs / 1000).toFixed(1),
      perSecond: Math.round(done.length / (elapsedMs / 1000)),
      byStatus: tally(done, (o) => String(o.status)),
      byCode: tally(done, (o) => o.code ?? '(none)'),
      byFamily: tally(done, (o) => o.r.family),
      rejectionsLogged: after.rejections - before.rejections,
    };
    process.stdout.write(`\nhostile-input summary ${JSON.stringify(summary, null, 2)}\n`);
    process.stdout.write(
      `hostile-input defects ${JSON.stringify(
        tally(done, (o) => `${o.r.family}: ${o.r.defect}`),
        null,
        1,
      )}\n`,
    );

    expect(timedOut).toBe(false);
    expect(done.length).toBe(requests.length);
    expect(done.length).toBeGreaterThanOrEqual(Math.min(10_000, RUNS));
    // every request reached the API and was answered
    expect(
      done
        .filter((o) => o.status === 0)
        .map(describeRequest)
        .slice(0, 20),
    ).toEqual([]);
    // none accepted, no 5xx
    expect(
      reached
        .filter((o) => o.status < 400 || o.status >= 500)
        .map(describeRequest)
        .slice(0, 20),
    ).toEqual([]);
    // every answer is `{ error: { code } }` with an AREA.REASON code
    expect(
      reached
        .filter((o) => !o.code || !CODE.test(o.code))
        .map(describeRequest)
        .slice(0, 20),
    ).toEqual([]);
    // the status and code each defect calls for
    const unexpected = reached.filter((o) => (o.r.expect?.status && !o.r.expect.status.includes(o.status)) || (o.r.expect?.code && !o.r.expect.code.includes(o.code ?? '')));
    expect(unexpected.map(describeRequest).slice(0, 20)).toEqual([]);

    // nothing recorded
    expect({ head: after.head, maxPosition: after.maxPosition, events: after.events, outbox: after.outbox, idempotencyKeys: after.idempotencyKeys }).toEqual({
      head: before.head,
      maxPosition: before.maxPosition,
      events: before.events,
      outbox: before.outbox,
      idempotencyKeys: before.idempotencyKeys,
    });
    expect(after.versions).toEqual(before.versions);
    expect(after.versions).toEqual(w.versions);
    expect(after.unknownShoeVersion).toBe(0);
    expect(chainsAfter.map((c) => [c.ok, c.eventsChecked])).toEqual(chainsBefore.map((c) => [c.ok, c.eventsChecked]));
    expect(chainsAfter.every((c) => c.ok)).toBe(true);

    // every refused write is logged once, 401 and 403 included: same counts per code and status
    expect(after.rejections - before.rejections).toBe(reached.length);
    const fromAnswers = tally(reached, (o) => `${o.status} ${o.code}`);
    const fromLog = Object.fromEntries(logged.map((r) => [`${r.http_status} ${r.code}`, r.n]).sort((a, b) => (b[1] as number) - (a[1] as number)));
    expect(fromLog).toEqual(fromAnswers);

    // the generator covered every family of defects
    const defects = new Set(done.map((o) => `${o.r.family}: ${o.r.defect}`));
    const families = tally(done, (o) => o.r.family);
    for (const f of ['auth', 'role', 'idempotency', 'expectedVersion', 'field', 'json', 'transport', 'path', 'state']) expect(families[f] ?? 0).toBeGreaterThanOrEqual(100);
    for (const d of [
      'auth: no token',
      'auth: garbage',
      'auth: wrong secret',
      'auth: expired',
      'auth: alg none',
      'auth: missing role',
      'auth: unknown role',
      'state: a ninth KH dealt',
      'state: card at a position the tableau forbids',
      'state: bet after betting closed',
      'state: Tiger side bet outside its window',
      'state: Fabulous Pair outside its window',
      'state: stake above the table maximum',
      'state: stake below the table minimum',
      'state: wrong currency',
      'state: unknown bet code',
      'state: unknown shoe',
      'state: unknown table',
      'state: approval: MANAGEMENT.SAME_APPROVER',
      'state: void: MANAGEMENT.DEALER_CANNOT_DECIDE',
      'state: approval: MANAGEMENT.DEALER_CANNOT_DECIDE',
      'state: rejection: MANAGEMENT.SAME_APPROVER',
      'state: approval of an unknown decision',
      'state: void of a round whose void awaits approval',
      'field: approverId in the body of a decision request',
      'field: approverId in the body of an approval',
      'state: stake zero or beyond 2^53-1 (2^63 included)',
      'state: exponent or huge stake above the maximum',
      'field: bet stake refused by the DTO',
      'field: bad card (card)',
      'field: extra field',
      'field: nested too deep',
      'idempotency: Idempotency-Key over 128 characters',
      'idempotency: Idempotency-Key reused for another request',
      'expectedVersion: stale or future expectedVersion',
      'field: bad expectedVersion type',
      'transport: body over 5 MB',
      'field: batch of 10,001 bets',
      'path: hostile path id',
    ]) {
      expect([d, defects.has(d)]).toEqual([d, true]);
    }
    expect(elapsedMs).toBeLessThan(DEADLINE_MS);
  });

  it('control: each command the defects were wrapped around is accepted once the defect is gone (a decision: requested 202, approved 201 by a second pit manager)', async () => {
    // Fresh shoes in the same states (the known ones must stay untouched); each base sent as is.
    const results: Array<[string, number | string]> = [];
    const expected: Array<[string, number | string]> = [];
    const post = (role: Role, sub: string, path: string, body: Json) =>
      fetch(`${h.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.token(role, sub)}` }, body: toJson(body) });
    for (const base of ctx.bases) {
      let path = base.path;
      let body = base.body;
      if (base.shoe === 'fresh') body = { ...base.body, shoeId: runId('hx-ctl-open') };
      else {
        const shoeId = runId(`hx-ctl-${base.shoe.toLowerCase()}`);
        await buildShoe(h, base.shoe, shoeId);
        path = base.path.split(ctx.w.ids[base.shoe]).join(shoeId);
      }
      const res = await post(base.role, base.sub, path, body);
      const name = `${base.ep} on ${base.shoe}`;
      if (base.role !== 'pit-manager') {
        expected.push([name, 201]);
        results.push([name, res.status === 201 ? 201 : `${res.status} ${await res.text()}`]);
        continue;
      }
      expected.push([name, '202 then 201']);
      const text = await res.text();
      if (res.status !== 202) {
        results.push([name, `${res.status} ${text}`]);
        continue;
      }
      const approved = await post('pit-manager', 'pm-2', `/decisions/${JSON.parse(text).decisionId}/approve`, {});
      results.push([name, approved.status === 201 ? '202 then 201' : `202 then ${approved.status} ${await approved.text()}`]);
    }
    expect(results).toEqual(expected);
  });
});
