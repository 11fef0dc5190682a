/**
 * The browser tier's data, dealt through the public HTTP API with the project's own simulator (as
 * scripts/demo.ts does): one OPEN shoe per table of config/tables.json. On T-CLASSIC-01 a few
 * resulted rounds, one round voided and one corrected by management, each in two steps, four eyes
 * (docs/domain-rules.md §6: pit manager `pm-1` requests, 202 PENDING_APPROVAL; `pm-2` approves,
 * 201); on the other tables a few resulted rounds. Then waits until the projections applied the last
 * event of every shoe (`GET /projections/applied/{eventId}`).
 *
 * Deterministic: the shoes come from fixed seeds, so every run deals the same cards and bets.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LedgerClient, ShoeScript, SimTable } from '@ledger/simulator';
import { clientLib, REPO_ROOT, simulatorLib, tokensLib } from './ledger-dist';
import { readStack, writeStack, type BrowserStack, type SeededClassic, type SeededScriptOptions, type SeededShoe } from './stack-file';

/** Who plays: a device, a platform, pit manager pm-1 who requests every decision, pm-2 who approves it. */
export const SEED_ACTORS = { device: 'device-1', platform: 'platform-1', manager: 'pm-1', approver: 'pm-2' } as const;

/** The table with the voided and the corrected round. */
export const CLASSIC_TABLE = 'T-CLASSIC-01';

/** Every table of config/tables.json (the subset of fields the simulator needs). */
export function configuredTables(): SimTable[] {
  return (JSON.parse(readFileSync(resolve(REPO_ROOT, 'config/tables.json'), 'utf8')) as { tables: SimTable[] }).tables;
}

/** A client of the API with the development secret; its device tokens may report for every configured table. */
export function seedClient(baseUrl: string): LedgerClient {
  const { LedgerClient } = simulatorLib();
  return new LedgerClient(baseUrl, tokensLib().jwtSecret({ LEDGER_ENV: 'development' }), { deviceTables: configuredTables().map((t) => t.tableId) });
}

function generate(table: SimTable, shoeId: string, o: SeededScriptOptions): ShoeScript {
  const { generateShoeScript } = simulatorLib();
  return generateShoeScript(table, o.seed, {
    shoeId,
    dealerId: o.dealerId,
    accounts: o.accounts,
    betChance: o.betChance,
    managementVoidChance: o.managementVoidChance,
    correctionChance: o.correctionChance,
    maxRounds: o.maxRounds,
  });
}

/** What {@link sendActions} saw. */
interface Sent {
  /** Decision ids by the round they void or correct. */
  readonly decisions: Map<string, { kind: 'voidRound' | 'correctResult'; decisionId: string }>;
}

/**
 * Sends `script.actions[from..to)` in order as the runner of `@ledger/simulator` does (each write with
 * the Idempotency-Key `<shoeId>:<index>`; a management action requested by pm-1 and approved by pm-2),
 * never the closing of the shoe: the seeded shoes stay open.
 * @throws LedgerHttpError on the first refused request
 */
async function sendActions(client: LedgerClient, script: ShoeScript, from: number, to: number): Promise<Sent> {
  const { requestOfAction, sendApiRequest, subjectOf, approvalRoute, APPROVAL_KEY_SUFFIX } = simulatorLib();
  const { isDecisionCommandKind, pendingDecisionOf } = clientLib();
  const decisions: Sent['decisions'] = new Map();
  for (let i = from; i < to; i++) {
    const a = script.actions[i];
    if (a.kind === 'closeShoe') continue;
    const key = `${script.shoeId}:${i}`;
    const req = requestOfAction(a, script.shoeId);
    const res = await sendApiRequest(client, req, subjectOf(req.role, SEED_ACTORS), { 'idempotency-key': key });
    const pending = isDecisionCommandKind(req.kind) ? pendingDecisionOf(res) : null;
    if (pending) {
      const [, sub, , , approval] = approvalRoute(pending.decisionId, SEED_ACTORS);
      await sendApiRequest(client, approval, sub, { 'idempotency-key': key + APPROVAL_KEY_SUFFIX });
      if (a.kind === 'voidRound' || a.kind === 'correctResult') decisions.set(a.roundId, { kind: a.kind, decisionId: pending.decisionId });
    }
  }
  return { decisions };
}

/** The script's actions without its closing (`closeShoe` is last). */
const openLength = (s: ShoeScript) => s.actions.length - (s.actions[s.actions.length - 1]?.kind === 'closeShoe' ? 1 : 0);
const roundsOf = (s: ShoeScript, upTo = s.actions.length) => s.actions.slice(0, upTo).flatMap((a) => (a.kind === 'openRound' ? [a.roundId] : []));

/**
 * The first seed `browser/T-CLASSIC-01/<n>` whose 6-round shoe has exactly one management void and
 * one correction, on rounds with bets, and at least three plain resulted rounds (found by generating,
 * which is local and quick).
 */
function classicOptions(table: SimTable, shoeId: string): SeededScriptOptions {
  for (let n = 0; n < 500; n++) {
    const o: SeededScriptOptions = { seed: `browser/${table.tableId}/${n}`, maxRounds: 6, accounts: 8, betChance: 0.6, managementVoidChance: 0.2, correctionChance: 0.2, dealerId: `dealer-${table.variant}-1` };
    const s = generate(table, shoeId, o);
    const voids = s.actions.filter((a) => a.kind === 'voidRound');
    const corrections = s.actions.filter((a) => a.kind === 'correctResult');
    if (voids.length !== 1 || corrections.length !== 1 || s.rounds !== o.maxRounds) continue;
    const withBets = new Set(s.actions.flatMap((a) => (a.kind === 'bets' ? [a.roundId] : [])));
    if ([...voids, ...corrections].every((a) => 'roundId' in a && withBets.has(a.roundId))) return o;
  }
  throw new Error('no seed gives one void and one correction in 500 tries');
}

/**
 * Waits until the projections applied the last event of the shoe (`GET /projections/applied/{eventId}`).
 * @returns that event's id
 * @throws Error after `timeoutMs`
 */
export async function waitForProjections(client: LedgerClient, shoeId: string, timeoutMs = 60_000): Promise<string> {
  const stream = await client.get('auditor', 'browser-seed', `/shoes/${encodeURIComponent(shoeId)}/events?fromVersion=1&limit=10000`);
  const last: string = stream.events[stream.events.length - 1].eventId;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await client.get('auditor', 'browser-seed', `/projections/applied/${last}`);
    if (r.applied) return last;
    if (Date.now() > deadline) throw new Error(`the projections did not apply event ${last} of shoe ${shoeId} in ${timeoutMs} ms (see .stack/browser/logs/projector.log)`);
    await new Promise((res) => setTimeout(res, 150));
  }
}

/** Seeds the ledger at `baseUrl` (fresh database); resolves the shoes and the classic table's decisions. */
export async function seedLedger(baseUrl: string): Promise<{ shoes: SeededShoe[]; classic: SeededClassic }> {
  const client = seedClient(baseUrl);
  const tables = configuredTables();
  const shoes: SeededShoe[] = [];
  let classic: SeededClassic | null = null;
  // the tables in parallel (as the demo deals them), each shoe's actions in order
  await Promise.all(
    tables.map(async (table) => {
      const shoeId = `BR-${table.tableId}-1`;
      const o: SeededScriptOptions =
        table.tableId === CLASSIC_TABLE
          ? classicOptions(table, shoeId)
          : { seed: `browser/${table.tableId}/0`, maxRounds: 3, accounts: 6, betChance: 0.6, managementVoidChance: 0, correctionChance: 0, dealerId: `dealer-${table.variant}-1` };
      const script = generate(table, shoeId, o);
      const to = openLength(script);
      const sent = await sendActions(client, script, 0, to);
      const lastEventId = await waitForProjections(client, shoeId);
      const roundIds = roundsOf(script, to);
      shoes.push({ tableId: table.tableId, variant: table.variant, shoeId, roundIds, actionsSent: to, lastEventId, script: o });
      if (table.tableId === CLASSIC_TABLE) {
        const decided = [...sent.decisions.entries()];
        const v = decided.find(([, d]) => d.kind === 'voidRound');
        const c = decided.find(([, d]) => d.kind === 'correctResult');
        if (!v || !c) throw new Error(`${shoeId}: the seeded void and correction were not both approved`);
        classic = {
          tableId: CLASSIC_TABLE,
          shoeId,
          resultedRoundIds: roundIds.filter((r) => r !== v[0] && r !== c[0]),
          voidedRoundId: v[0],
          voidDecisionId: v[1].decisionId,
          correctedRoundId: c[0],
          correctionDecisionId: c[1].decisionId,
        };
      }
    }),
  );
  if (!classic) throw new Error(`${CLASSIC_TABLE} is not in config/tables.json`);
  shoes.sort((a, b) => tables.findIndex((t) => t.tableId === a.tableId) - tables.findIndex((t) => t.tableId === b.tableId));
  return { shoes, classic };
}

/**
 * Deals `rounds` more rounds (bets, cards, result) into a table's seeded shoe through the API, the
 * continuation of the same generated shoe (the same seed with more rounds; no void or correction
 * is added), waits for the projections, and records them in the stack file. For scenarios such as
 * "the table page updates live when a round is dealt".
 * @returns the new rounds' ids
 */
export async function dealRounds(tableId: string, rounds = 1): Promise<string[]> {
  const stack: BrowserStack = readStack();
  const shoe = stack.shoes.find((s) => s.tableId === tableId);
  if (!shoe) throw new Error(`no seeded shoe on ${tableId}`);
  const table = configuredTables().find((t) => t.tableId === tableId)!;
  // the same seed with more rounds begins with the same actions; the management decisions the
  // generator draws for the rounds after the seeded ones are dropped (only the seeded ones are voided or corrected)
  const full = generate(table, shoe.shoeId, { ...shoe.script, maxRounds: shoe.roundIds.length + rounds });
  const seededRounds = new Set(roundsOf(full).slice(0, shoe.script.maxRounds));
  const script: ShoeScript = { ...full, actions: full.actions.filter((a) => !((a.kind === 'voidRound' || a.kind === 'correctResult') && !seededRounds.has(a.roundId))) };
  const client = seedClient(stack.baseUrl);
  const end = openLength(script);
  await sendActions(client, script, shoe.actionsSent, end);
  const lastEventId = await waitForProjections(client, shoe.shoeId);
  const roundIds = roundsOf(script, end);
  writeStack({ ...stack, shoes: stack.shoes.map((s) => (s.tableId === tableId ? { ...s, roundIds, actionsSent: end, lastEventId } : s)) });
  return roundIds.slice(shoe.roundIds.length);
}
