/**
 * Hostile input on the read side (docs/guarantees.md §11): generated hostile GET requests at every
 * read route of the real API (real PostgreSQL, real Kafka, the relay and projector in-process), around
 * one real shoe with rounds, bets, a void and a correction, projected.
 *
 * The routes are not listed here: they are read from the API's own OpenAPI document (`/docs-json`,
 * every `get` operation with its path and query parameters), so a read route added later is attacked
 * too without touching this spec (a check below fails if the document lists fewer than the routes known
 * today).
 *
 * Each request starts from a valid call of its route (the known shoe, round, bet, table, event and
 * decision ids; the documented query parameters) and then breaks it: prototype keys (`constructor`,
 * `__proto__`, `toString`, `hasOwnProperty`, …) as names and values, huge / negative / NaN / Infinity
 * numbers, repeated parameters (`?a=1&a=2`), bracketed names (`a[b]=`), NUL and other control
 * characters, lone surrogates, SQL text, very long strings, bad UUIDs, impossible dates and days,
 * cursors this API never made, unknown parameters.
 *
 * Asserted: no 5xx; every 4xx is `{ error: { code } }` with a code of the one error table
 * (`ERROR_TABLE`) and the status the table gives it; every refusal of a query parameter is 400
 * `VALIDATION.FAILED`; nothing is written but `query_log` rows (the event store is unchanged).
 * Reproducible: fast-check with a fixed seed (env HOSTILE_READS_SEED; HOSTILE_READS_RUNS requests).
 */
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { ERROR_TABLE, isErrorCode } from '@ledger/errors';
import { generateShoeScript, runShoeScript, type SimTable } from '@ledger/simulator';
import { isAsOfText } from '../../apps/ledger/src/kernel/query.dto';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

const SEED = Number(process.env.HOSTILE_READS_SEED ?? 20261202);
const RUNS = Number(process.env.HOSTILE_READS_RUNS ?? 4_000);
const CONCURRENCY = 8;

jest.setTimeout(420_000);

/** The read routes of today (a new one is picked up from the document; these must not disappear). */
const KNOWN_READ_ROUTES = [
  '/tables',
  '/me',
  '/tables/overview',
  '/shoes',
  '/shoes/{shoeId}/rounds',
  '/live/tables',
  '/asyncapi',
  '/shoes/{shoeId}/events',
  '/shoes/{shoeId}/chain',
  '/decisions',
  '/decisions/{decisionId}',
  '/audit/anchors/verify',
  '/shoes/{shoeId}/rounds/{roundId}/recall',
  '/audit/events',
  '/audit/decisions',
  '/audit/access-log',
  '/exports/anchors',
  '/exports/manifest',
  '/exports/{kind}',
  '/settlements',
  '/settlements/{betId}',
  '/reports/reconciliation',
  '/shoes/{shoeId}/roads',
  '/shoes/{shoeId}/state',
  '/tables/{tableId}/chain',
  '/projections/applied/{eventId}',
  '/gaming-days/closes',
  '/significant-events',
  '/significant-events/live',
  '/significant-events/{significantEventId}',
  '/gaming-days/{day}/close',
  '/statistics/staff',
  '/reconciliation/wallet-files',
];

interface Operation {
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** The query parameters the route requires (its valid call carries them). */
  requiredQuery: string[];
}

interface ReadRequest {
  route: string;
  defect: string;
  /** Already encoded path and query string. */
  url: string;
  /** Whether the defect is in the query string (then the only acceptable refusal is 400 VALIDATION.FAILED). */
  inQuery: boolean;
  /**
   * Whether the request carries one well-formed `asOf` (a global position or a time, docs/reports.md §3):
   * it is then answered as of it — 404 for a round or bet that did not exist then, 409
   * `ASOF.NOT_PROJECTED` while the read model has not reached it, or a heavy recall busy (429).
   */
  asOfAccepted: boolean;
  /**
   * Whether the request carries one well-formed `receipts` (UUIDs, docs/reports.md §5): it is then
   * answered as a bundle of those — 404 `EXPORT.RECEIPT_NOT_FOUND`, 422 `EXPORT.BUNDLE_INCONSISTENT`.
   */
  receiptsAccepted: boolean;
}

interface Outcome {
  r: ReadRequest;
  status: number;
  code: string | null;
  text: string;
}

const PROTO_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'isPrototypeOf', '__defineGetter__', 'toLocaleString', 'propertyIsEnumerable'];
const b64 = (s: string) => Buffer.from(s).toString('base64url');

/**
 * Hostile values `[what, encoded]`, already percent-encoded where a raw form could not be written in
 * a URL. Long ones stay well under Node's 16 KB header limit (a longer URL is refused by Node's HTTP
 * parser with a bare 431 before the application sees it).
 */
const FIXED: Array<[string, string]> = [
  ...PROTO_KEYS.map((k): [string, string] => [`prototype key ${k}`, encodeURIComponent(k)]),
  ['prototype key in a list', encodeURIComponent('table,constructor')],
  ['prototype key in a list', encodeURIComponent('__proto__,currency')],
  ['list of empties', encodeURIComponent(',,,')],
  ['repeated dimension', encodeURIComponent('table,table,day')],
  ['huge number', '99999999999999999999999999'],
  ['huge number', '1e309'],
  ['huge number', '9007199254740993'],
  ['huge number', '-9223372036854775809'],
  ['negative', '-1'],
  ['negative zero', '-0'],
  ['NaN', 'NaN'],
  ['Infinity', 'Infinity'],
  ['hex number', '0x10'],
  ['fraction', '1.5'],
  ['exponent', '1e3'],
  ['empty', ''],
  ['blank', '%20%20'],
  ['NUL', '%00'],
  ['NUL inside', 'abc%00def'],
  ['control characters', '%01%02%1B%7F'],
  ['newline', 'a%0D%0Ab'],
  ['lone surrogate (CESU)', '%ED%A0%80'],
  ['invalid UTF-8', '%C3%28'],
  ['invalid percent-encoding', '%E0%A4%A'],
  ['bad percent', '%zz'],
  ['unicode', encodeURIComponent('ẞhoe-Ω-🂡')],
  ['right-to-left override', encodeURIComponent('\u202Eabc')],
  ['SQL text', encodeURIComponent("' OR 1=1 --")],
  ['SQL text', encodeURIComponent('1; DROP TABLE events; --')],
  ['SQL text', encodeURIComponent('table_id) FROM pg_shadow --')],
  ['SQL text', encodeURIComponent('$1')],
  ['SQL identifier', encodeURIComponent('"table_id"')],
  ['very long', 'a'.repeat(2_000)],
  ['very long', '9'.repeat(1_000)],
  ['very long list', encodeURIComponent(Array(300).fill('table').join(','))],
  ['bad UUID', '00000000-0000-0000-0000-00000000000g'],
  ['bad UUID', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz'],
  ['bad UUID', '------------------------------------'],
  ['bad UUID', '00000000000000000000000000000000'],
  ['bad date', '2026-13-45'],
  ['bad date', '2026-02-30'],
  ['bad date', '0000-00-00'],
  ['bad date', '99999-01-01'],
  ['bad date', '-000001-01-01'],
  ['bad date', encodeURIComponent('+275760-09-13T00:00:00.001Z')],
  ['bad date', encodeURIComponent('-271821-04-20T00:00:00.000Z')],
  ['bad date', '2026-12-02T25:61:61Z'],
  ['bad date', encodeURIComponent('0001-01-01T00:00:00+23:59')],
  ['bad date', encodeURIComponent('9999-12-31T23:59:59-23:59')],
  ['bad date', 'yesterday'],
  ['bad date', '1'],
  ['date-like number', '20261202'],
  ['boolean', 'true'],
  ['boolean', 'TRUE'],
  ['boolean', 'yes'],
  ['null', 'null'],
  ['undefined', 'undefined'],
  ['JSON', encodeURIComponent('{"a":1}')],
  ['JSON', encodeURIComponent('[1,2]')],
  ['cursor not made here', b64('"abc"')],
  ['cursor not made here', b64('{"a":1}')],
  ['cursor not made here', b64('[1,2]')],
  ['cursor not made here', b64('1e400')],
  ['cursor not made here', b64('-5')],
  ['cursor not made here', b64('99999999999999999999999')],
  ['cursor not made here', b64('"\\u0000"')],
  ['cursor not made here', b64('true')],
  ['cursor not made here', b64('null')],
  ['cursor not made here', b64('"1.5"')],
  ['cursor not made here', 'not-base64-!!'],
  ['status-like', 'OPEN%00'],
  ['lower-case enum', 'open'],
  ['enum with space', 'OPEN%20'],
  ['currency-like', 'eur'],
  ['currency-like', 'EURO'],
  ['type-like', 'RoundVoided%27'],
];

function hostileValues(): fc.Arbitrary<[string, string]> {
  const fixed = FIXED;
  const generated: fc.Arbitrary<[string, string]>[] = [
    fc.integer().map((n): [string, string] => ['random integer', String(n)]),
    fc.double().map((n): [string, string] => ['random double', encodeURIComponent(String(n))]),
    fc.string({ maxLength: 40 }).map((s): [string, string] => ['random string', encodeURIComponent(s)]),
    fc.string({ unit: 'binary', maxLength: 30 }).map((s): [string, string] => ['random unicode', encodeURIComponent(s)]),
    fc.uuid().map((s): [string, string] => ['random UUID', s]),
    fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15) }).map((d): [string, string] => ['random date', encodeURIComponent(Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString())]),
    fc
      .array(fc.constantFrom('table', 'shoe', 'dealer', 'day', 'currency', 'constructor', '__proto__', 'toString', '', 'x'), { maxLength: 6 })
      .map((a): [string, string] => ['random dimension list', encodeURIComponent(a.join(','))]),
  ];
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...fixed) }, { weight: 1, arbitrary: fc.oneof(...generated) });
}

/** A valid value of a query parameter (so a request can break one thing and keep the rest valid). */
function validQueryValue(name: string, ids: Ids): string | null {
  switch (name) {
    case 'tableId':
      return ids.tableId;
    case 'shoeId':
      return ids.shoeId;
    case 'roundId':
      return ids.roundId;
    case 'accountId':
      return ids.accountId;
    case 'actorId':
    case 'requestedBy':
      return 'pm-1';
    case 'dealerId':
      return 'dealer-3';
    case 'type':
      return 'RoundVoided';
    case 'from':
      return encodeURIComponent('2000-01-01T00:00:00.000Z');
    case 'to':
      return encodeURIComponent('2100-01-01T00:00:00.000Z');
    case 'gamingDay':
      return ids.day;
    case 'fromDay':
      return '2000-01-01';
    case 'toDay':
      return '2100-01-01';
    case 'limit':
      return '10';
    case 'fromVersion':
      return '1';
    case 'status':
      return null; // two different enums (settlements, decisions): the document's enum is not needed here
    case 'groupBy':
      return 'table,currency';
    case 'format':
      return 'json';
    case 'currency':
      return 'EUR';
    case 'kafka':
      return 'false';
    case 'graceMs':
      return '120000';
    case 'receipts':
      return ids.receipts;
    default:
      return null;
  }
}

interface Ids {
  shoeId: string;
  roundId: string;
  betId: string;
  tableId: string;
  eventId: string;
  decisionId: string;
  accountId: string;
  /** `GET /exports/{kind}` (docs/reports.md §5). */
  kind: string;
  /** A gaming day closed for the spec's table (docs/reports.md §2). */
  day: string;
  /** A stored wallet match run (docs/reports.md §4). */
  runId: string;
  /** The receipts of the five exports of one period, comma-separated (`GET /exports/manifest`, docs/reports.md §5). */
  receipts: string;
  /** A significant event the monitor raised (docs/significant-events.md). */
  significantEventId: string;
}

function pathWith(op: Operation, ids: Ids, override?: { name: string; value: string }): string {
  return op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (override && override.name === name) return override.value;
    return encodeURIComponent((ids as unknown as Record<string, string>)[name] ?? 'x');
  });
}

type Mutation =
  | { kind: 'value'; param: number; value: [string, string] }
  | { kind: 'unknown name'; name: [string, string]; value: [string, string] }
  | { kind: 'repeated'; param: number; value: [string, string] }
  | { kind: 'bracketed'; param: number; sub: [string, string]; value: [string, string] }
  | { kind: 'path'; param: number; value: [string, string] }
  | { kind: 'many'; values: Array<[number, [string, string]]> };

/**
 * Every query parameter name some read route takes (from the document), plus the names the read
 * side uses: a route is attacked with its own names and with the others' (which it must refuse).
 */
const SHARED_NAMES = ['cursor', 'limit', 'status', 'groupBy', 'format', 'from', 'to', 'type', 'tableId', 'shoeId', 'roundId', 'actorId'];
let allNames: string[] = SHARED_NAMES;

/** The names a request on `op` may carry, valid or not: its own first. */
function namesOf(op: Operation): string[] {
  return [...new Set([...op.queryParams, ...allNames])];
}

function mutationArb(op: Operation): fc.Arbitrary<Mutation> {
  const v = hostileValues();
  const names = fc.oneof(
    fc.constantFrom(...PROTO_KEYS.map((k): [string, string] => [k, encodeURIComponent(k)])),
    fc.constantFrom<[string, string]>(['unknown', 'foo'], ['uppercased', 'LIMIT'], ['NUL name', 'a%00'], ['long name', 'n'.repeat(1_000)], ['empty name', ''], ['SQL name', encodeURIComponent('1=1;--')]),
  );
  const q = namesOf(op).length;
  const arbs: fc.Arbitrary<Mutation>[] = [fc.record({ kind: fc.constant('unknown name' as const), name: names, value: v })];
  if (q > 0) {
    const idx = fc.nat({ max: q - 1 });
    arbs.push(
      fc.record({ kind: fc.constant('value' as const), param: idx, value: v }),
      fc.record({ kind: fc.constant('value' as const), param: idx, value: v }),
      fc.record({ kind: fc.constant('repeated' as const), param: idx, value: v }),
      fc.record({ kind: fc.constant('bracketed' as const), param: idx, sub: names, value: v }),
      fc.record({ kind: fc.constant('many' as const), values: fc.array(fc.tuple(idx, v), { minLength: 2, maxLength: 5 }) }),
    );
  }
  if (op.pathParams.length > 0) arbs.push(fc.record({ kind: fc.constant('path' as const), param: fc.nat({ max: op.pathParams.length - 1 }), value: v }));
  return fc.oneof(...arbs);
}

function buildRequest(op: Operation, ids: Ids, m: Mutation): ReadRequest {
  const names = namesOf(op);
  const base = new Map<string, string>();
  for (const name of op.queryParams) {
    const value = validQueryValue(name, ids);
    if (value !== null && Math.abs(hashOf(op.path + name)) % 2 === 0) base.set(name, value);
  }
  const pairs = (): Array<[string, string]> => [...base.entries()];
  let path = pathWith(op, ids);
  let query: Array<[string, string]>;
  let defect: string;
  let inQuery = true;
  switch (m.kind) {
    case 'value': {
      const name = names[m.param];
      base.set(name, m.value[1]);
      query = pairs();
      defect = op.queryParams.includes(name) ? `${name}: ${m.value[0]}` : `${name} (not taken here): ${m.value[0]}`;
      break;
    }
    case 'unknown name':
      query = [...pairs(), [m.name[1], m.value[1]]];
      defect = `unknown parameter (${m.name[0]})`;
      break;
    case 'repeated': {
      const name = names[m.param];
      base.delete(name);
      query = [...pairs(), [name, validQueryValue(name, ids) ?? 'x'], [name, m.value[1]]];
      defect = `${name} repeated`;
      break;
    }
    case 'bracketed': {
      const name = names[m.param];
      base.delete(name);
      query = [...pairs(), [`${name}%5B${m.sub[1]}%5D`, m.value[1]]];
      defect = `${name}[${m.sub[0]}]`;
      break;
    }
    case 'path': {
      const name = op.pathParams[m.param];
      path = pathWith(op, ids, { name, value: m.value[1] || '%20' });
      query = pairs();
      defect = `path ${name}: ${m.value[0]}`;
      inQuery = false;
      break;
    }
    case 'many':
      for (const [i, value] of m.values) base.set(names[i], value[1]);
      query = pairs();
      defect = 'several hostile values';
      break;
  }
  const qs = query.map(([k, v]) => `${k}=${v}`).join('&');
  const asOf = query.filter(([k]) => k === 'asOf');
  const asOfAccepted = asOf.length === 1 && isAsOfText(decodedOrNull(asOf[0][1]));
  const receipts = query.filter(([k]) => k === 'receipts');
  const receiptsAccepted = receipts.length === 1 && RECEIPTS.test(decodedOrNull(receipts[0][1]) ?? '');
  return { route: op.path, defect, url: qs ? `${path}?${qs}` : path, inQuery, asOfAccepted, receiptsAccepted };
}

/**
 * The systematic part, whatever the sample draws: each route's own query parameters with each fixed
 * hostile value, each path parameter with each, every other route's parameter names, each prototype
 * key as a name, each parameter repeated and bracketed.
 */
function exhaustive(ops: Operation[], ids: Ids): ReadRequest[] {
  const out: ReadRequest[] = [];
  for (const op of ops) {
    const names = namesOf(op);
    names.forEach((name, param) => {
      const own = op.queryParams.includes(name);
      for (const value of own ? FIXED : FIXED.slice(0, 12)) out.push(buildRequest(op, ids, { kind: 'value', param, value }));
      out.push(buildRequest(op, ids, { kind: 'repeated', param, value: ['valid twice', validQueryValue(name, ids) ?? 'x'] }));
      out.push(buildRequest(op, ids, { kind: 'bracketed', param, sub: ['empty', ''], value: ['x', 'x'] }));
      out.push(buildRequest(op, ids, { kind: 'bracketed', param, sub: ['__proto__', '__proto__'], value: ['x', 'x'] }));
    });
    op.pathParams.forEach((_name, param) => {
      for (const value of FIXED) out.push(buildRequest(op, ids, { kind: 'path', param, value }));
    });
    for (const k of PROTO_KEYS) out.push(buildRequest(op, ids, { kind: 'unknown name', name: [k, encodeURIComponent(k)], value: ['x', 'x'] }));
  }
  return out;
}

function hashOf(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

async function fire(baseUrl: string, token: string, r: ReadRequest): Promise<Outcome> {
  try {
    const abort = new AbortController();
    const res = await fetch(`${baseUrl}${r.url}`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
    // a live stream (GET /live/tables) never ends: its status and headers are the answer
    const streaming = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (streaming) abort.abort();
    const text = streaming ? '' : await res.text();
    let code: string | null = null;
    try {
      code = JSON.parse(text)?.error?.code ?? null;
    } catch {
      code = null;
    }
    return { r, status: res.status, code, text };
  } catch (err) {
    return { r, status: 0, code: null, text: String(err) };
  }
}

function decodedOrNull(v: string): string | null {
  try {
    return decodeURIComponent(v);
  } catch {
    return null;
  }
}

/** A well-formed `receipts` value (see {@link ReadRequest.receiptsAccepted}). */
const RECEIPTS = /^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}(,[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}){0,9}$/;
/** What a well-formed `receipts` may be answered with besides 2xx. */
const RECEIPTS_ANSWERS = new Set(['EXPORT.RECEIPT_NOT_FOUND', 'EXPORT.BUNDLE_INCONSISTENT']);

/** What a well-formed `asOf` may be answered with besides 2xx (see {@link ReadRequest.asOfAccepted}). */
const AS_OF_ANSWERS = new Set(['ASOF.NOT_PROJECTED', 'ROUND.NOT_FOUND', 'BET.NOT_FOUND', 'RATE.HEAVY_READ_BUSY']);

function describe_(o: Outcome): string {
  const url = o.r.url.length > 160 ? `${o.r.url.slice(0, 160)}…(${o.r.url.length})` : o.r.url;
  return `[${o.r.route} | ${o.r.defect}] GET ${url} → ${o.status} ${o.code ?? ''} ${o.text.slice(0, 160)}`;
}

function tally<T>(xs: T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

async function waitApplied(h: LedgerHarness, eventId: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const r = await h.client.get('auditor', 'aud-1', `/projections/applied/${eventId}`);
    if (r.applied) return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`event ${eventId} not projected`);
}

/** The receipts of the five exports of the period up to now (for `GET /exports/manifest`, which signs only its caller's own: the reads below ask as `aud-hostile`), comma-separated. */
async function exportReceipts(h: LedgerHarness): Promise<string> {
  const period = `from=2000-01-01T00:00:00Z&to=${encodeURIComponent(new Date().toISOString())}`;
  const out: string[] = [];
  for (const kind of ['events', 'settlements', 'decisions', 'rejections', 'access-log']) {
    const res = await fetch(`${h.baseUrl}/exports/${kind}?${period}`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'aud-hostile')}` } });
    await res.text();
    out.push(res.headers.get('ledger-export-receipt') ?? 'missing');
  }
  return out.join(',');
}

describe('hostile input on every read route (docs/guarantees.md §11)', () => {
  let h: LedgerHarness;
  let ids: Ids;
  let ops: Operation[];

  beforeAll(async () => {
    // the significant-event monitor on, for GET /significant-events/{significantEventId}
    h = await startLedger({ env: { SIGNIFICANT_MONITOR: 'true', SIGNIFICANT_MONITOR_GROUP: `hostile-reads-${runId('sig')}` } });
    await h.startRelay();
    await h.startProjector();
    const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;
    const table = tables.find((t) => t.tableId === 'T-CLASSIC-01')!;
    const shoeId = runId('hr');
    // a short seeded shoe with at least one management decision (a void or a correction, two-step)
    let script = generateShoeScript(table, 'hostile-reads-0', { shoeId, dealerId: 'dealer-3', accounts: 3, betChance: 0.9, maxRounds: 6, managementVoidChance: 0.3, correctionChance: 0.3 });
    for (let i = 1; i < 200 && !script.actions.some((a) => a.kind === 'voidRound' || a.kind === 'correctResult'); i++) {
      script = generateShoeScript(table, `hostile-reads-${i}`, { shoeId, dealerId: 'dealer-3', accounts: 3, betChance: 0.9, maxRounds: 6, managementVoidChance: 0.3, correctionChance: 0.3 });
    }
    await runShoeScript(script, h.client);
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h, stored[stored.length - 1].eventId);
    const [bet] = await h.ds.query(`SELECT bet_id, round_id, account_id FROM ${h.readSchema}.bet_settlements WHERE shoe_id = $1 ORDER BY bet_id LIMIT 1`, [shoeId]);
    const decision = stored.find((e) => e.type === 'DecisionRequested') as unknown as { data: { decisionId: string } } | undefined;
    // a closed gaming day, for GET /gaming-days/{day}/close
    const [{ day }] = await h.ds.query(`SELECT gaming_day::text AS day FROM ${h.readSchema}.hand_outcomes WHERE round_id = $1`, [bet.round_id]);
    // the current gaming day: closed early, with four eyes (a request, a second pit manager's approval)
    const request = await h.client.post<{ requestId: string }>('pit-manager', 'pm-1', `/gaming-days/${day}/close`, { tableIds: [table.tableId], early: true, reason: 'hostile reads setup' });
    await h.client.post('pit-manager', 'pm-2', `/gaming-days/${day}/close-requests/${request.requestId}/approve`, {});
    // a stored wallet match run, for GET /reconciliation/wallet-files/{runId} and its items
    const walletFile = `transactionId,roundId,betId,account,type,amount,currency,time\n${bet.bet_id}:bet,${bet.round_id},${bet.bet_id},${bet.account_id},bet,1,EUR,2026-01-01T00:00:00Z\n`;
    const upload = await fetch(`${h.baseUrl}/reconciliation/wallet-files?fromDay=${day}&toDay=${day}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.client.token('pit-manager', 'pm-1')}`, 'content-type': 'text/csv' },
      body: walletFile,
    });
    const run = (await upload.json()) as { runId?: string };
    if (!run.runId) throw new Error(`wallet upload: ${upload.status} ${JSON.stringify(run)}`);
    // a significant event the monitor raised from the shoe (a void, a correction, a card exposed…)
    let significantEventId: string | undefined;
    for (let i = 0; i < 300 && !significantEventId; i++) {
      const page = await h.client.get<{ items: { significantEventId: string; shoeId: string | null }[] }>('auditor', 'aud-1', `/significant-events?tableId=${table.tableId}&limit=100`);
      significantEventId = page.items.find((e) => e.shoeId === shoeId)?.significantEventId;
      if (!significantEventId) await new Promise((r) => setTimeout(r, 200));
    }
    if (!significantEventId) throw new Error('no significant event raised from the shoe within 60 s');
    ids = {
      shoeId,
      significantEventId,
      roundId: bet.round_id,
      betId: bet.bet_id,
      accountId: bet.account_id,
      tableId: table.tableId,
      eventId: stored[0].eventId,
      decisionId: decision?.data.decisionId ?? '00000000-0000-4000-8000-000000000000',
      kind: 'events',
      day,
      runId: run.runId,
      receipts: await exportReceipts(h),
    };
    const doc = (await (await fetch(`${h.baseUrl}/docs-json`)).json()) as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; required?: boolean }> }>> };
    ops = [];
    for (const [path, item] of Object.entries<Record<string, { parameters?: Array<{ in: string; name: string; required?: boolean }> }>>(doc.paths)) {
      const get = item.get;
      if (!get) continue;
      const params = get.parameters ?? [];
      const query = params.filter((p) => p.in === 'query');
      ops.push({ path, pathParams: params.filter((p) => p.in === 'path').map((p) => p.name), queryParams: query.map((p) => p.name), requiredQuery: query.filter((p) => p.required).map((p) => p.name) });
    }
    allNames = [...new Set([...ops.flatMap((o) => o.queryParams), ...SHARED_NAMES])];
  });

  afterAll(async () => {
    await h?.close();
  });

  it('the OpenAPI document lists every read route the router serves (so the run covers every one)', () => {
    const paths = ops.map((o) => o.path);
    for (const p of KNOWN_READ_ROUTES) expect([p, paths.includes(p)]).toEqual([p, true]);
    // every GET route Express serves, but the API docs and Nest's catch-all: one hidden from the
    // document (@ApiExcludeEndpoint) would escape the run otherwise
    const express = h.app.getHttpAdapter().getInstance() as { router?: { stack: any[] }; _router?: { stack: any[] } };
    const served = (express.router ?? express._router)!.stack
      // ... and the console's static files and the topics' JSON Schemas (public files, no data:
      // test/e2e/console-static.e2e.spec.ts, test/e2e/schemas.e2e.spec.ts)
      .filter(
        (l) => l.route && l.route.methods?.get && !String(l.route.path).startsWith('/docs') && !String(l.route.path).startsWith('/console') && !String(l.route.path).startsWith('/schemas') && !String(l.route.path).includes('{*'),
      )
      .map((l) => String(l.route.path).replace(/:(\w+)/g, '{$1}'));
    expect(served.length).toBeGreaterThan(0);
    expect([...new Set(served)].sort()).toEqual([...paths].sort());
  });

  it('each read route answers its valid call with 2xx (the hostile ones below start from these)', async () => {
    const token = h.client.token('auditor', 'aud-hostile');
    const bad: string[] = [];
    for (const op of ops) {
      const required = op.requiredQuery.map((name) => `${name}=${validQueryValue(name, ids)}`).join('&');
      const url = required ? `${pathWith(op, ids)}?${required}` : pathWith(op, ids);
      const o = await fire(h.baseUrl, token, { route: op.path, defect: 'none', url, inQuery: false, asOfAccepted: false, receiptsAccepted: false });
      if (o.status >= 300) bad.push(describe_(o));
    }
    expect(bad).toEqual([]);
  });

  it(`answers the systematic and ${RUNS} generated hostile read requests (seed ${SEED}) with no 5xx, only codes of the error table`, async () => {
    const eventsBefore = await h.ds.query(`SELECT count(*)::int AS n, coalesce(max(global_position), 0)::text AS head FROM events`);
    const arb = fc.constantFrom(...ops).chain((op) => mutationArb(op).map((m) => buildRequest(op, ids, m)));
    const requests = exhaustive(ops, ids);
    const systematic = requests.length;
    requests.push(...fc.sample(arb, { seed: SEED, numRuns: RUNS }));
    const tokens = [h.client.token('auditor', 'aud-hostile'), h.client.token('pit-manager', 'pm-hostile')];
    const outcomes: Outcome[] = new Array(requests.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_x, worker) => {
        while (next < requests.length) {
          const i = next++;
          outcomes[i] = await fire(h.baseUrl, tokens[worker % 2], requests[i]);
        }
      }),
    );
    const summary = {
      seed: SEED,
      requests: outcomes.length,
      systematic,
      byStatus: tally(outcomes, (o) => String(o.status)),
      byCode: tally(outcomes, (o) => o.code ?? '(none)'),
      byRoute: tally(outcomes, (o) => o.r.route),
      fiveHundreds: tally(
        outcomes.filter((o) => o.status >= 500),
        (o) => `${o.r.route} | ${o.r.defect}`,
      ),
    };
    process.stdout.write(`\nhostile-reads summary ${JSON.stringify(summary, null, 2)}\n`);
    // every answer, for a closer look (env HOSTILE_READS_OUT=<file>)
    if (process.env.HOSTILE_READS_OUT)
      writeFileSync(process.env.HOSTILE_READS_OUT, outcomes.map((o) => JSON.stringify({ route: o.r.route, defect: o.r.defect, url: o.r.url.slice(0, 300), status: o.status, code: o.code })).join('\n'));

    // every request was answered
    expect(
      outcomes
        .filter((o) => o.status === 0)
        .map(describe_)
        .slice(0, 10),
    ).toEqual([]);
    // no 5xx
    expect(
      outcomes
        .filter((o) => o.status >= 500)
        .map(describe_)
        .slice(0, 30),
    ).toEqual([]);
    // every 4xx names a code of the error table, with the table's status
    const codeProblems = outcomes.filter((o) => o.status >= 400 && (!isErrorCode(o.code) || ERROR_TABLE[o.code].status !== o.status));
    expect(codeProblems.map(describe_).slice(0, 20)).toEqual([]);
    // a defect in the query string is refused as what it is: 400 VALIDATION.FAILED (or the one-at-a-time 409 of the anchors check)
    // (or, for a well-formed asOf, an answer as of that position: AS_OF_ANSWERS); a value the route accepts may meet the
    // heavy-read limit (429 RATE.HEAVY_READ_BUSY: the workers share two callers, and a heavy read is one at a time per caller)
    const queryRefusals = outcomes.filter(
      (o) =>
        o.r.inQuery &&
        o.status >= 400 &&
        !(
          o.code === 'VALIDATION.FAILED' ||
          o.code === 'ANCHORS.VERIFY_RUNNING' ||
          o.code === 'RATE.HEAVY_READ_BUSY' ||
          (o.r.asOfAccepted && AS_OF_ANSWERS.has(o.code ?? '')) ||
          (o.r.receiptsAccepted && RECEIPTS_ANSWERS.has(o.code ?? ''))
        ),
    );
    expect(queryRefusals.map(describe_).slice(0, 20)).toEqual([]);
    // an unknown, repeated or bracketed parameter, or one the route does not take, is always refused
    const accepted = outcomes.filter((o) => o.status < 400 && /^unknown parameter|repeated$|\[|not taken here/.test(o.r.defect));
    expect(accepted.map(describe_).slice(0, 20)).toEqual([]);
    // and the run changed nothing in the ledger
    const eventsAfter = await h.ds.query(`SELECT count(*)::int AS n, coalesce(max(global_position), 0)::text AS head FROM events`);
    expect(eventsAfter).toEqual(eventsBefore);
  });
});
