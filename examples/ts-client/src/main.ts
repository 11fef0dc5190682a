/**
 * Replays a shoe through the TypeScript client generated from docs/openapi.json (types by
 * openapi-typescript in `schema.d.ts`, calls by openapi-fetch; one typed call per step), waits
 * until the projections applied the last event, then reads a recall, the reconciliation as JSON
 * and as CSV, and an export, and prints a JSON summary on stdout.
 *
 * Environment: LEDGER_API_URL (e.g. http://127.0.0.1:3000), LEDGER_STEPS (the steps file),
 * LEDGER_TOKEN_TABLE_DEVICE, LEDGER_TOKEN_BETTING_PLATFORM, LEDGER_TOKEN_AUDITOR (bearer tokens,
 * e.g. from `npm run -s token`). Exits 1 on the first failed call.
 */
import { readFileSync } from 'node:fs';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema';
import { INTEGRATOR_BET, type Bet } from './integrator-bet';

type Schemas = components['schemas'];
type CommandResult = Schemas['CommandResult'];

/** One step of the steps file (test/clients/client-steps.ts writes it). */
interface Step {
  operationId: string;
  path: { tableId?: string; shoeId?: string; roundId?: string };
  body: Record<string, unknown>;
  idempotencyKey: string;
}

interface StepsFile {
  shoeId: string;
  recallRoundId: string;
  steps: Step[];
}

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

/** A generated client that sends `token` as the bearer of every call. */
function clientFor(token: string): Client<paths> {
  return createClient<paths>({ baseUrl: env('LEDGER_API_URL'), headers: { authorization: `Bearer ${token}` } });
}

const device = clientFor(env('LEDGER_TOKEN_TABLE_DEVICE'));
const platform = clientFor(env('LEDGER_TOKEN_BETTING_PLATFORM'));
const auditor = clientFor(env('LEDGER_TOKEN_AUDITOR'));

/** The data of a 2xx answer; throws with the operation, status and error body otherwise. */
function ok<T>(op: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(`${op} → ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

/** The bets of a `placeBets` step, each as a typed {@link Bet}. */
function betsOf(body: Record<string, unknown>): Bet[] {
  return (body.bets as Bet[]).map((b) => ({ betId: b.betId, accountId: b.accountId, betCode: b.betCode, stake: b.stake, currency: b.currency }));
}

/** One step through its generated operation (path, parameters and body typed from the document). */
async function send(step: Step): Promise<CommandResult> {
  const { operationId: op, body, idempotencyKey } = step;
  const header = { 'Idempotency-Key': idempotencyKey };
  const shoeId = step.path.shoeId!;
  const roundId = step.path.roundId!;
  switch (op) {
    case 'openShoe':
      return ok(op, await device.POST('/tables/{tableId}/shoes', { params: { path: { tableId: step.path.tableId! }, header }, body: body as Schemas['OpenShoeDto'] }));
    case 'drawCommencementCard':
      return ok(op, await device.POST('/shoes/{shoeId}/commencement', { params: { path: { shoeId }, header }, body: body as Schemas['DrawCommencementCardDto'] }));
    case 'burnCard':
      return ok(op, await device.POST('/shoes/{shoeId}/burns', { params: { path: { shoeId }, header }, body: body as Schemas['BurnCardDto'] }));
    case 'drawCutCard':
      return ok(op, await device.POST('/shoes/{shoeId}/cut-card', { params: { path: { shoeId }, header }, body: body as Schemas['FactWriteDto'] }));
    case 'openRound':
      return ok(op, await device.POST('/shoes/{shoeId}/rounds', { params: { path: { shoeId }, header }, body: body as Schemas['OpenRoundDto'] }));
    case 'placeBets':
      return ok(op, await platform.POST('/shoes/{shoeId}/rounds/{roundId}/bets/batch', { params: { path: { shoeId, roundId }, header }, body: { bets: betsOf(body) } }));
    case 'closeBetting':
      return ok(op, await device.POST('/shoes/{shoeId}/rounds/{roundId}/close-betting', { params: { path: { shoeId, roundId }, header }, body: body as Schemas['EmptyWriteDto'] }));
    case 'dealCard':
      return ok(op, await device.POST('/shoes/{shoeId}/rounds/{roundId}/cards', { params: { path: { shoeId, roundId }, header }, body: body as Schemas['DealCardDto'] }));
    case 'closeShoe':
      return ok(op, await device.POST('/shoes/{shoeId}/close', { params: { path: { shoeId }, header }, body: body as Schemas['EmptyWriteDto'] }));
    default:
      throw new Error(`no call for the operation ${op}`);
  }
}

/** Polls getEventApplied until the projections applied `eventId` (at most 60 s). */
async function waitApplied(eventId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const r = ok('getEventApplied', await auditor.GET('/projections/applied/{eventId}', { params: { path: { eventId } } }));
    if (r.applied) return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`event ${eventId} not applied within 60 s`);
}

/** The `column` of the CSV row whose `keyColumn` is `key` (a header line, then plain cells: ids and integers). */
function csvColumn(csv: string, column: string, keyColumn: string, key: string): string {
  const [head, ...rows] = csv.trimEnd().split(/\r?\n/);
  const names = head.split(',');
  const row = rows.map((l) => l.split(',')).find((cells) => cells[names.indexOf(keyColumn)] === key);
  if (!row) throw new Error(`no CSV row with ${keyColumn}=${key}`);
  return row[names.indexOf(column)];
}

/** The recall of `roundId`, the reconciliation of the shoe (JSON and CSV) and the settlements export since `since`. */
async function reads(shoeId: string, roundId: string, since: string) {
  const recall = ok('recallRound', await auditor.GET('/shoes/{shoeId}/rounds/{roundId}/recall', { params: { path: { shoeId, roundId } } }));
  const query = { groupBy: 'shoe', shoeId };
  const json = ok('getReconciliation', await auditor.GET('/reports/reconciliation', { params: { query }, headers: { accept: 'application/json' } }));
  const csv = ok('getReconciliation (CSV)', await auditor.GET('/reports/reconciliation', { params: { query }, headers: { accept: 'text/csv' }, parseAs: 'text' }));
  const exported = ok('exportPeriod', await auditor.GET('/exports/{kind}', { params: { path: { kind: 'settlements' }, query: { from: since } }, headers: { accept: 'application/x-ndjson' }, parseAs: 'text' }));
  const lines = exported.split('\n').filter((l) => l.trim() !== '');
  // JSON Lines: a header line, one line per row, a trailer {"trailer":{"rows":N}}
  const trailer = JSON.parse(lines[lines.length - 1]) as { trailer: { rows: number } };
  // the 200 answer is typed as either media type of the document: JSON was asked for
  if (typeof json === 'string') throw new Error('getReconciliation answered CSV to Accept: application/json');
  const row = json.items[0];
  return {
    recall: { roundId: recall.round.roundId, status: recall.round.status, winner: recall.round.winner, bets: recall.bets.length },
    reconciliation: { turnover: row.turnover, payouts: row.payouts, turnoverCsv: csvColumn(csv, 'turnover', 'shoeId', shoeId), payoutsCsv: csvColumn(csv, 'payouts', 'shoeId', shoeId) },
    export: { rows: trailer.trailer.rows },
  };
}

/** Runs the program: the steps of LEDGER_STEPS, then the reads. */
async function main(): Promise<void> {
  const since = new Date(Date.now() - 5_000).toISOString();
  const file = JSON.parse(readFileSync(env('LEDGER_STEPS'), 'utf8')) as StepsFile;
  let lastEventId = '';
  for (const step of file.steps) {
    const r = await send(step);
    if (r.events.length) lastEventId = r.events[r.events.length - 1].eventId;
  }
  await waitApplied(lastEventId);
  const out = await reads(file.shoeId, file.recallRoundId, since);
  process.stdout.write(JSON.stringify({ client: 'ts', calls: file.steps.length, lastEventId, integratorStake: INTEGRATOR_BET.stake, ...out }) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`ts-client: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
