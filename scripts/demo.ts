/**
 * The demo's driver (run by scripts/demo.sh once the API, relay and projector are up): simulates
 * whole 8-deck shoes on three tables (one per variant) through the public HTTP API — every void and
 * correction in two steps, four eyes (docs/domain-rules.md §6): requested by pit manager pm-1 (202
 * PENDING_APPROVAL), approved by pm-2 with their own token (201) — waits for the projections, then
 * prints per table the reconciliation (turnover, payouts, GGR, hold, voids, corrections) checked
 * against the settlements it writes, the hash-chain verification, the anchor verification
 * (`scripts/verify.ts`: PostgreSQL against the signed anchors and the Kafka copy), and where to
 * look next; with `--keep-running`, the console's address, a pit-manager token to sign in with, and
 * one void requested by pm-1 left pending for a second manager to approve in the console.
 *
 *   npx tsx scripts/demo.ts [--seed <hex>] [--shoes <n per table, 1..20>] [--hands <n>] [--keep-running]
 * env LEDGER_API (default http://127.0.0.1:3000), JWT_SECRET (as the API's).
 */
import { Command, InvalidArgumentError } from 'commander';
import { MultiBar, Presets } from 'cli-progress';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatMinor } from '@ledger/rules';
import { apiRequestOf, decisionsPathOf, pendingDecisionOf } from '@ledger/client';
import { generateShoeScript, LedgerClient, runShoeScript, SeededRandom, sendApiRequest, ShoeScript, SimTable, type RunnerActors } from '@ledger/simulator';
import { jwtSecret } from '@ledger/tokens';

const DEMO_TABLES = ['T-CLASSIC-01', 'T-TIGER-01', 'T-FAB4-01'];
/** Who plays: a device, a platform, and two pit managers — pm-1 requests every void and correction, pm-2 approves it. */
const DEMO_ACTORS: RunnerActors = { device: 'device-1', platform: 'platform-1', manager: 'pm-1', approver: 'pm-2' };

/** How the demo's shoes are generated (docs/domain-rules.md §5, §6: a few voids, corrections and special cards). */
const DEMO_SHOE_OPTIONS = {
  accounts: 12,
  betChance: 0.6,
  exposedCardChance: 0.01,
  droppedCardChance: 0.01,
  unneededCardChance: 0.02,
  managementVoidChance: 0.03,
  correctionChance: 0.03,
} as const;

/** Whether a shoe's script voids (by management) a round that has bets: its settled bets are then refunded. */
function voidsARoundWithBets(s: ShoeScript): boolean {
  const withBets = new Set(s.actions.filter((a) => a.kind === 'bets').map((a) => (a as { roundId: string }).roundId));
  return s.actions.some((a) => a.kind === 'voidRound' && withBets.has((a as { roundId: string }).roundId));
}

interface Options {
  seed?: string;
  shoes: number;
  hands: number;
  keepRunning?: boolean;
}

/** The third-party hand history, beside the checkout (see README). */
const HANDS_ARCHIVE = resolve(__dirname, '../../shared/data/hand-histories/one-million-hands.txt.tar.xz');

/** A whole number in lo..hi, for commander: a bad value is a usage error (exit 1) before anything runs, as scripts/demo.sh checks it. */
const wholeIn =
  (lo: number, hi: number) =>
  (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < lo || Number(value) > hi) throw new InvalidArgumentError(`expected a whole number ${lo}..${hi}`);
    return Number(value);
  };

const program = new Command('demo')
  .option('--seed <hex>', 'seed of the run (printed; pass it back to reproduce the same shoes)')
  .option('--shoes <n>', 'simulated shoes per table, 1..20', wholeIn(1, 20), 1)
  .option('--hands <n>', 'recorded third-party hands to replay (0 = none)', wholeIn(0, 999_999_999), 300)
  .option('--keep-running', 'leave the services running (handled by scripts/demo.sh)')
  .parse();
const opts = program.opts<Options>();

const api = process.env.LEDGER_API ?? 'http://127.0.0.1:3000';
// development mode (scripts/demo.sh sets LEDGER_ENV=development): the API and these tokens use the development secret unless JWT_SECRET is set
const client = new LedgerClient(api, jwtSecret(), { deviceTables: DEMO_TABLES });
const out = (s = '') => process.stdout.write(`${s}\n`);
/** A copy of this run's wallet file (README, "Match a wallet file"); removed when a run starts. */
const LATEST_WALLET_FILE = '.stack/demo/wallet-latest.csv';

async function main(): Promise<void> {
  const seed = opts.seed ?? SeededRandom.newSeed();
  const shoesPerTable = opts.shoes;
  const runTag = createHash('sha256').update(seed).digest('hex').slice(0, 8);
  mkdirSync('.stack/demo', { recursive: true });
  // the README's wallet how-to reads the last file of a run that reached the wallet step, never an older run's
  rmSync(LATEST_WALLET_FILE, { force: true });
  out(`seed ${seed}  (reproduce: npm run demo -- --seed ${seed})`);
  const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables.filter((t: SimTable) => DEMO_TABLES.includes(t.tableId));

  // 1. generate every shoe from the seed
  const scripts: ShoeScript[] = [];
  for (const table of tables) {
    for (let i = 1; i <= shoesPerTable; i++) {
      const shoeId = `demo-${runTag}-${table.tableId}-${i}`;
      scripts.push(generateShoeScript(table, `${seed}/${table.tableId}/${i}`, { ...DEMO_SHOE_OPTIONS, shoeId, dealerId: `dealer-${table.variant}-${i}` }));
    }
  }

  // 1b. the wallet match (step 5b) needs a refund: at least one shoe must void a round that has bets;
  // when the seed gave none, the first shoe is generated again from the seed and a counter until it does
  if (!scripts.some(voidsARoundWithBets)) {
    const first = scripts[0];
    for (let k = 1; k <= 200 && !voidsARoundWithBets(scripts[0]); k++) {
      scripts[0] = generateShoeScript(first.table, `${seed}/${first.table.tableId}/1/refund-${k}`, { ...DEMO_SHOE_OPTIONS, shoeId: first.shoeId, dealerId: `dealer-${first.table.variant}-1` });
    }
    if (!voidsARoundWithBets(scripts[0])) throw new Error('no shoe of this seed voids a round with bets (the wallet match needs a refund)');
  }

  // 2. deal them through the API, one runner per table in parallel, shoes of a table in order
  const dealtFrom = new Date().toISOString();
  const bars = new MultiBar({ format: ' {table} |{bar}| {value}/{total} requests', hideCursor: true, noTTYOutput: false }, Presets.shades_classic);
  const t0 = Date.now();
  const stats = await Promise.all(
    tables.map(async (table) => {
      const mine = scripts.filter((s) => s.table.tableId === table.tableId);
      const bar = process.stderr.isTTY
        ? bars.create(
            mine.reduce((n, s) => n + s.actions.length, 0),
            0,
            { table: table.tableId.padEnd(13) },
          )
        : null;
      let done = 0;
      const totals = { requests: 0, events: 0, bets: 0, rounds: 0, voids: 0, corrections: 0, approvals: 0 };
      for (const s of mine) {
        const base = done;
        const r = await runShoeScript(s, client, DEMO_ACTORS, (d) => bar?.update(base + d));
        done += s.actions.length;
        for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r[k];
      }
      return { table: table.tableId, ...totals };
    }),
  );
  bars.stop();
  // every event of the simulated shoes was recorded in dealtFrom..dealtTo (the server's clock, this machine's)
  const dealtTo = new Date(Date.now() + 1).toISOString();
  const secs = (Date.now() - t0) / 1000;
  const requests = stats.reduce((n, s) => n + s.requests, 0);
  const events = stats.reduce((n, s) => n + s.events, 0);
  out(`dealt ${scripts.length} shoes: ${requests} requests, ${events} events in ${secs.toFixed(1)} s (${Math.round(events / secs)} events/s)`);
  const voids = stats.reduce((n, s) => n + s.voids, 0);
  const corrections = stats.reduce((n, s) => n + s.corrections, 0);
  const approvals = stats.reduce((n, s) => n + s.approvals, 0);
  out(
    `management decisions, four eyes: ${voids} void(s) and ${corrections} correction(s), each requested by ${DEMO_ACTORS.manager} (202 PENDING_APPROVAL, nothing changed yet) ` +
      `and approved by ${DEMO_ACTORS.approver} with their own token (201): ${approvals} approved`,
  );

  // 2b. a slice of recorded play: the third-party hands, converted to the table-log format and replayed
  const recorded = await replayRecordedHands(runTag, opts.hands);

  // 3. wait for the projections to apply the last event of every shoe
  process.stderr.write('waiting for the projections to catch up…\n');
  for (const s of scripts) {
    const stream = await client.get('auditor', 'demo-auditor', `/shoes/${s.shoeId}/events?fromVersion=1&limit=10000`);
    const last = stream.events[stream.events.length - 1].eventId;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await client.get('auditor', 'demo-auditor', `/projections/applied/${last}`);
      if (r.applied) break;
      if (Date.now() > deadline) throw new Error(`projections did not catch up with shoe ${s.shoeId} in 120 s (see .stack/logs/projector.log)`);
      await new Promise((res) => setTimeout(res, 250));
    }
  }

  // 4. settlements (written as JSONL) and the reconciliation they must agree with
  mkdirSync('.stack/demo', { recursive: true });
  const settlementsFile = `.stack/demo/settlements-${runTag}.jsonl`;
  const lines: string[] = [];
  const fromSettlements = new Map<string, { turnover: bigint; payouts: bigint; voided: bigint }>();
  const simBets: SimSettlement[] = [];
  for (const s of scripts) {
    const acc = fromSettlements.get(s.table.tableId) ?? { turnover: 0n, payouts: 0n, voided: 0n };
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: any = await client.get('auditor', 'demo-auditor', `/settlements?shoeId=${s.shoeId}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
      for (const b of page.items) {
        simBets.push({ ...b, shoeId: s.shoeId });
        lines.push(JSON.stringify({ betId: b.betId, roundId: b.roundId, betCode: b.betCode, stake: b.stake, payout: b.payout, net: b.net, status: b.status, revision: b.revision }));
        if (b.status === 'REFUNDED') acc.voided += BigInt(b.stake);
        else {
          acc.turnover += BigInt(b.stake);
          acc.payouts += BigInt(b.payout);
        }
      }
      cursor = page.nextCursor;
    }
    fromSettlements.set(s.table.tableId, acc);
  }
  writeFileSync(settlementsFile, lines.join('\n') + '\n');
  for (const r of recorded.settlements) {
    const acc = fromSettlements.get(r.tableId) ?? { turnover: 0n, payouts: 0n, voided: 0n };
    if (r.status === 'REFUNDED') acc.voided += BigInt(r.stake);
    else {
      acc.turnover += BigInt(r.stake);
      acc.payouts += BigInt(r.payout);
    }
    fromSettlements.set(r.tableId, acc);
  }

  out('');
  out('reconciliation by table (EUR; minor units shown as major)');
  out('table          rounds  voided  corrected      turnover       payouts           GGR     hold   voided stakes  agrees');
  let allAgree = true;
  for (const table of tables) {
    let turnover = 0n,
      payouts = 0n,
      ggr = 0n,
      voidedStakes = 0n,
      rounds = 0n,
      voided = 0n,
      corrections = 0n;
    const shoeIds = [...scripts.filter((x) => x.table.tableId === table.tableId).map((x) => x.shoeId), ...(recorded.shoesByTable.get(table.tableId) ?? [])];
    for (const shoeId of shoeIds) {
      const rec = await client.get('auditor', 'demo-auditor', `/reports/reconciliation?groupBy=shoe&shoeId=${shoeId}`);
      for (const r of rec.items) {
        turnover += BigInt(r.turnover);
        payouts += BigInt(r.payouts);
        ggr += BigInt(r.ggr);
        voidedStakes += BigInt(r.voidedStakes);
        rounds += BigInt(r.roundsResulted);
        voided += BigInt(r.roundsVoided);
        corrections += BigInt(r.corrections);
      }
    }
    const mine = fromSettlements.get(table.tableId)!;
    const agrees = mine.turnover === turnover && mine.payouts === payouts && mine.voided === voidedStakes && ggr === turnover - payouts;
    allAgree &&= agrees;
    const hold = turnover === 0n ? '-' : `${formatMinor((ggr * 10000n) / turnover, 2)}%`;
    out(
      `${table.tableId.padEnd(13)} ${String(rounds).padStart(7)} ${String(voided).padStart(7)} ${String(corrections).padStart(10)} ${formatMinor(turnover).padStart(13)} ${formatMinor(payouts).padStart(13)} ${formatMinor(ggr).padStart(13)} ${hold.padStart(8)} ${formatMinor(voidedStakes).padStart(15)}  ${agrees ? 'yes' : 'NO'}`,
    );
  }
  out(`settlements written to ${settlementsFile} (${lines.length} bets, simulated shoes)${recorded.file ? ` and ${recorded.file} (${recorded.settlements.length} bets, recorded hands)` : ''}`);
  out(`reconciliation (simulated and recorded shoes together) ${allAgree ? 'agrees with the settlements' : 'DISAGREES with the settlements'}`);
  if (!recorded.ok) out('recorded hands: the ledger DISAGREED with the hand history (see above)');

  // 5b. the wallet match: a wallet file from the simulated shoes' own settlements, with four faults
  const walletOk = await walletMatch(runTag, simBets, { from: dealtFrom, to: dealtTo });

  out('');
  out('hash-chain verification');
  let chainsOk = true;
  for (const table of tables) {
    const v = await client.get('auditor', 'demo-auditor', `/tables/${table.tableId}/chain`);
    chainsOk &&= v.ok;
    out(
      `  ${table.tableId.padEnd(13)} ${v.ok ? 'intact' : 'BROKEN'}: ${v.streamsChecked} streams (its shoes and its significant events), ${v.eventsChecked} events${v.ok ? '' : `, problems: ${JSON.stringify(v.problems.slice(0, 3))}`}`,
    );
  }

  // the decisions as the ledger lists them: every one the simulated shoes requested is approved, none pending
  out('');
  out('management decisions (GET /decisions): requested by one pit manager, approved by another');
  let listedApproved = 0;
  let listedPending = 0;
  for (const s of scripts) {
    listedApproved += (await client.get('auditor', 'demo-auditor', decisionsPathOf({ status: 'APPROVED', shoeId: s.shoeId }))).decisions.length;
    listedPending += (await client.get('auditor', 'demo-auditor', decisionsPathOf({ status: 'PENDING_APPROVAL', shoeId: s.shoeId }))).decisions.length;
  }
  const decisionsOk = listedApproved === approvals && listedPending === 0;
  out(`  simulated shoes: ${listedApproved} approved by ${DEMO_ACTORS.approver}, ${listedPending} pending${decisionsOk ? '' : ` — EXPECTED ${approvals} approved, 0 pending`}`);
  if (!decisionsOk) process.exitCode = 1;

  out('');
  out('anchor verification (scripts/verify.ts: PostgreSQL against the signed anchors and the Kafka copy)');
  const anchors = await verifyAnchors();
  for (const line of anchors.lines) out(`  ${line}`);
  if (anchors.ok === false) process.exitCode = 1;

  const voidedRound = scripts.flatMap((s) => s.actions.filter((a) => a.kind === 'voidRound').map((a) => ({ shoeId: s.shoeId, roundId: (a as { roundId: string }).roundId })))[0];
  const plain = plainRound(scripts);
  out('');
  out(opts.keepRunning ? 'where to look next (the services keep running; npm run demo:stop stops them)' : 'where to look next (the services stop now: run `npm run demo -- --keep-running` to keep them up and try these)');
  out(`  API docs (OpenAPI):   ${api}/docs`);
  out(`  a token:              LEDGER_ENV=development npm run -s token -- --role auditor --sub me`);
  if (voidedRound) {
    out(`  recall a voided round: in the console, ${api}/console/shoes/${encodeURIComponent(voidedRound.shoeId)}/rounds/${encodeURIComponent(voidedRound.roundId)}; or`);
    out(`    curl -s -H "Authorization: Bearer $(LEDGER_ENV=development npm run -s token -- --role auditor --sub me)" ${api}/shoes/${voidedRound.shoeId}/rounds/${voidedRound.roundId}/recall`);
  }
  out(`  reconciliation CSV:   curl -s -H "Authorization: Bearer $(LEDGER_ENV=development npm run -s token -- --role auditor --sub me)" "${api}/reports/reconciliation?groupBy=table,shoe,dealer,day,currency&format=csv"`);
  out(`  the Kafka topic:      ${process.env.LEDGER_EVENTS_TOPIC ?? 'baccarat.ledger.events.v1'} on ${process.env.KAFKA_BROKERS ?? '127.0.0.1:9092'} (docs/asyncapi)`);
  const pmToken = (sub: string) => `$(LEDGER_ENV=development npm run -s token -- --role pit-manager --sub ${sub})`;
  out(`  four eyes by hand: one pit manager requests, a different one approves with their own token`);
  if (plain) {
    out(`    request a void as pm-1 (answers 202 with a decisionId; nothing changes yet):`);
    out(`      curl -s -X POST -H "Authorization: Bearer ${pmToken('pm-1')}" -H 'content-type: application/json' -d '{"reason":"card exposed, seen on camera review"}' ${api}/shoes/${plain.shoeId}/rounds/${plain.roundId}/void`);
  }
  out(`    list the pending decisions:`);
  out(`      curl -s -H "Authorization: Bearer ${pmToken('pm-2')}" "${api}${decisionsPathOf({ status: 'PENDING_APPROVAL' })}"`);
  out(`    approve one as the second manager pm-2 (201; pm-1 approving their own request is refused):`);
  out(`      curl -s -X POST -H "Authorization: Bearer ${pmToken('pm-2')}" -H 'content-type: application/json' -d '{}' ${api}/decisions/<decisionId>/approve`);
  out(`    or reject it: .../decisions/<decisionId>/reject with -d '{"reason":"no exposure on the video"}'`);
  out(`  the anchor verification: npm run -s verify`);
  if (opts.keepRunning) await printConsole(scripts, plain);
  if (!allAgree || !chainsOk || !recorded.ok || !walletOk) process.exitCode = 1;
}

/** A bet of the simulated shoes as `GET /settlements` lists it. */
interface SimSettlement {
  shoeId: string;
  betId: string;
  betTransactionId: string;
  roundId: string;
  accountId: string;
  currency: string;
  stake: string;
  status: string;
  payout: string | null;
  revision: number;
  placedAt: string;
  settledAt: string | null;
}

/** One line of the demo's wallet file (docs/reports.md §4). */
interface WalletLine {
  transactionId: string;
  roundId: string;
  betId: string;
  accountId: string;
  type: 'bet' | 'win' | 'refund';
  amount: string;
  currency: string;
  time: string;
}

/**
 * The wallet match (docs/reports.md §4): writes a wallet file (CSV) of every money movement of the
 * simulated shoes' bets — the ids and amounts the ledger shows (`betTransactionId`; the history's
 * `transactionId` and `walletAmount` from the recall of every round with a resettled or refunded
 * bet) — with four faults picked deterministically (by transaction id) from what was dealt: a
 * missing win, a doubled refund, a bet amount off by one minor unit, an unknown bet. Uploads it to
 * `POST /reconciliation/wallet-files` over the time period the shoes were dealt in, prints the
 * match, and checks it found exactly those four and matched everything else.
 * @returns whether the match found exactly the injected faults
 */
async function walletMatch(runTag: string, bets: readonly SimSettlement[], period: { from: string; to: string }): Promise<boolean> {
  const sub = 'demo-wallet';
  const lines: WalletLine[] = [];
  const line = (b: SimSettlement, transactionId: string, type: WalletLine['type'], amount: string, time: string): WalletLine => ({
    transactionId,
    roundId: b.roundId,
    betId: b.betId,
    accountId: b.accountId,
    type,
    amount,
    currency: b.currency,
    time,
  });
  // the history of bets that were resettled or refunded, from the recall of their rounds
  const rounds = [...new Set(bets.filter((b) => b.status === 'RESETTLED' || b.status === 'REFUNDED').map((b) => `${b.shoeId}|${b.roundId}`))].sort();
  const history = new Map<string, { transactionId: string; kind: string; walletAmount: string; occurredAt: string }[]>();
  for (const key of rounds) {
    const [shoeId, roundId] = key.split('|');
    const recall: any = await client.get('auditor', sub, `/shoes/${shoeId}/rounds/${roundId}/recall`);
    for (const b of recall.bets) history.set(b.betId, b.history);
  }
  for (const b of bets) {
    lines.push(line(b, b.betTransactionId, 'bet', b.stake, b.placedAt));
    const entries = history.get(b.betId) ?? (b.status === 'SETTLED' ? [{ transactionId: `${b.betId}:win:${b.revision}`, kind: 'SETTLED', walletAmount: b.payout ?? '0', occurredAt: b.settledAt! }] : []);
    // a movement of 0 (a lost bet's win) is not booked by a wallet (docs/reports.md §4)
    for (const e of entries) if (e.walletAmount !== '0') lines.push(line(b, e.transactionId, e.kind === 'REFUNDED' ? 'refund' : 'win', e.walletAmount, e.occurredAt));
  }
  lines.sort((a, b) => (a.transactionId < b.transactionId ? -1 : a.transactionId > b.transactionId ? 1 : 0));
  const win = lines.find((l) => l.type === 'win' && BigInt(l.amount) > 0n);
  const refund = lines.find((l) => l.type === 'refund');
  const offByOne = lines.find((l) => l.type === 'bet' && l.betId !== win?.betId && l.betId !== refund?.betId);
  out('');
  out('wallet match (POST /reconciliation/wallet-files; docs/reports.md §4)');
  if (!win || !refund || !offByOne) {
    out(`  the simulated shoes have no ${!win ? 'win' : !refund ? 'refund' : 'other bet'} to inject a fault into: NOT CHECKED`);
    return false;
  }
  const ghost: WalletLine = { ...offByOne, transactionId: `demo-${runTag}-ghost:bet`, betId: `demo-${runTag}-ghost`, roundId: offByOne.roundId, amount: '500' };
  const file = [...lines.filter((l) => l !== win).map((l) => (l === offByOne ? { ...l, amount: String(BigInt(l.amount) + 1n) } : l)), { ...refund }, ghost];
  const expected = new Map([
    [win.transactionId, 'MISSING_IN_WALLET'],
    [refund.transactionId, 'DUPLICATED'],
    [offByOne.transactionId, 'AMOUNT_DIFFERS'],
    [ghost.transactionId, 'MISSING_IN_LEDGER'],
  ]);
  const columns: (keyof WalletLine)[] = ['transactionId', 'roundId', 'betId', 'accountId', 'type', 'amount', 'currency', 'time'];
  const csv = [columns.join(','), ...file.map((l) => columns.map((c) => l[c]).join(','))].join('\n') + '\n';
  const walletFile = `.stack/demo/wallet-${runTag}.csv`;
  writeFileSync(walletFile, csv);
  writeFileSync(LATEST_WALLET_FILE, csv);
  out(`  wallet file ${walletFile}: ${file.length} transactions of the simulated shoes, with 4 injected faults:`);
  out(`    a missing win ${win.transactionId}, a doubled refund ${refund.transactionId}, a bet off by one minor unit ${offByOne.transactionId}, an unknown bet ${ghost.transactionId}`);
  const res = await fetch(`${api}/reconciliation/wallet-files?from=${encodeURIComponent(period.from)}&to=${encodeURIComponent(period.to)}`, {
    method: 'POST',
    // the upload stores a run: a pit manager's act (auditors only read, docs/guarantees.md §12)
    headers: { authorization: `Bearer ${client.token('pit-manager', 'demo-wallet-pm')}`, 'content-type': 'text/csv' },
    body: csv,
  });
  const run: any = await res.json();
  if (res.status !== 201) {
    out(`  the upload was REFUSED: ${res.status} ${run?.error?.code}: ${run?.error?.message}`);
    return false;
  }
  const t = run.totals;
  out(
    `  run ${run.runId} over ${period.from} .. ${period.to}: ${t.MATCHED} matched, ${t.MISSING_IN_WALLET} missing in the wallet, ${t.MISSING_IN_LEDGER} missing in the ledger, ${t.AMOUNT_DIFFERS} amount differs, ${t.FIELDS_DIFFER} fields differ, ${t.DUPLICATED} duplicated`,
  );
  for (const sRow of run.summary) out(`    ${sRow.currency} ${sRow.gamingDay}: ledger ${formatMinor(BigInt(sRow.ledgerAmount))}, wallet ${formatMinor(BigInt(sRow.walletAmount))}`);
  const findings: { status: string; transactionId: string; ledgerAmount: string | null; walletAmount: string | null }[] = [];
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const page: any = await client.get('auditor', sub, `/reconciliation/wallet-files/${run.runId}/items?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    findings.push(...page.items.filter((i: { status: string }) => i.status !== 'MATCHED'));
    cursor = page.nextCursor;
  }
  for (const f of findings) out(`    ${f.status.padEnd(18)} ${f.transactionId}  ledger ${f.ledgerAmount ?? '-'}  wallet ${f.walletAmount ?? '-'}`);
  const exact = findings.length === expected.size && findings.every((f) => expected.get(f.transactionId) === f.status) && t.MATCHED === lines.length - 2;
  out(`  ${exact ? 'the match found exactly the 4 injected faults and matched every other transaction' : 'the match did NOT find exactly the injected faults'}`);
  out(`  its mismatches as CSV: curl -s -H "Authorization: Bearer $(LEDGER_ENV=development npm run -s token -- --role auditor --sub me)" "${api}/reconciliation/wallet-files/${run.runId}/items?format=csv"`);
  return exact;
}

/**
 * With `--keep-running`: the back-office console's address (`$LEDGER_API/console`, served by the
 * API), a pit-manager token to paste into its sign-in page (pm-1, the simulator's 12 h token signed
 * like `npm run -s token`), how to mint the others, and one void requested by pm-1 and left
 * PENDING for a second manager to approve in the console (Approvals), on another round than the
 * by-hand example's `plain`.
 */
async function printConsole(scripts: readonly ShoeScript[], plain: { shoeId: string; roundId: string } | null): Promise<void> {
  const mint = (args: string) => `LEDGER_ENV=development npm run -s token -- ${args}`;
  out('');
  out(`the console (back office, in a browser): ${api}/console`);
  out(`  sign in with this pit-manager token (pm-1, 12 h; paste it into the "Token" field):`);
  out(`    ${client.token('pit-manager', DEMO_ACTORS.manager)}`);
  out(`  other tokens: the second manager ${mint('--role pit-manager --sub pm-2')}`);
  out(`                an auditor        ${mint('--role auditor --sub aud-1')}`);
  out(`                a table device    ${mint('--role table-device --sub device-1 --tables T-CLASSIC-01')}`);
  out(`                a platform        ${mint('--role betting-platform --sub platform-1')}`);
  const pendingRound = plainRound([...scripts].reverse().filter((s) => s.shoeId !== plain?.shoeId)) ?? null;
  if (!pendingRound) return;
  try {
    const req = apiRequestOf({ kind: 'voidRound', shoeId: pendingRound.shoeId, roundId: pendingRound.roundId, reason: 'card exposed before the deal, seen on camera review' });
    const answer = await sendApiRequest(client, req, DEMO_ACTORS.manager, { 'idempotency-key': `${pendingRound.shoeId}:${pendingRound.roundId}:console-pending-void` });
    const pending = pendingDecisionOf(answer);
    if (!pending) return;
    out(`  waiting for a second manager: pm-1 requested a void of round ${pendingRound.roundId} (decision ${pending.decisionId}, expires ${pending.expiresAt ?? 'never'});`);
    out(`    sign in as pm-2 (mint the token as above), open Approvals and approve or reject it (pm-1 may not approve their own request)`);
    out(`    its recall: ${api}/console/shoes/${encodeURIComponent(pendingRound.shoeId)}/rounds/${encodeURIComponent(pendingRound.roundId)}`);
  } catch (e) {
    out(`  (could not leave a pending void for the console: ${e instanceof Error ? e.message : String(e)})`);
  }
}

/** A round of the simulated shoes that was dealt to a result and neither voided nor corrected (for the by-hand void), or null. */
function plainRound(scripts: readonly ShoeScript[]): { shoeId: string; roundId: string } | null {
  for (const s of scripts) {
    let round: string | null = null;
    let fine = false;
    for (const a of s.actions) {
      if (a.kind === 'openRound') {
        if (round && fine) return { shoeId: s.shoeId, roundId: round };
        round = a.roundId;
        fine = false;
      } else if (a.kind === 'deal') fine = true;
      else if (a.kind === 'expose' || a.kind === 'drop' || a.kind === 'voidRound' || a.kind === 'correctResult') fine = false;
    }
    if (round && fine) return { shoeId: s.shoeId, roundId: round };
  }
  return null;
}

/** What the anchor verification said: ok null when it could not run here. */
interface AnchorCheck {
  readonly ok: boolean | null;
  readonly lines: string[];
}

/**
 * Runs `scripts/verify.ts --json` (the `npm run -s verify` of the anchors, docs/guarantees.md §8)
 * and sums up its report: every stream consistent with the signed anchors and the Kafka copy, or
 * the first divergence. Exit 0 consistent, 1 a divergence, 2 could not check. Skipped (ok null)
 * when this checkout has no `scripts/verify.ts`.
 */
async function verifyAnchors(): Promise<AnchorCheck> {
  const script = resolve(__dirname, 'verify.ts');
  if (!existsSync(script)) return { ok: null, lines: ['skipped: this checkout has no scripts/verify.ts (npm run -s verify)'] };
  const r = await runCaptured('npx', ['tsx', script, '--json']);
  let report: any = null;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    report = null;
  }
  if (!report || (r.status !== 0 && r.status !== 1)) return { ok: false, lines: [`could not check (verify exit ${r.status}; see its message above)`] };
  const kafka = report.kafkaRecordsChecked === null || report.kafkaRecordsChecked === undefined ? 'the Kafka copy NOT checked' : `${report.kafkaRecordsChecked} Kafka records`;
  const summary = `${report.streamsChecked} streams, ${report.eventsChecked} events against ${report.anchorsChecked} signed anchors${report.lastAnchor ? ` (last #${report.lastAnchor.seq})` : ''} and ${kafka}`;
  if (report.ok && r.status === 0) return { ok: true, lines: [`every stream consistent with the anchors and the Kafka copy: ${summary}; divergences 0`] };
  const d = report.firstDivergence;
  const where = d ? [d.streamId && `stream ${d.streamId}`, d.version !== null && d.version !== undefined && `version ${d.version}`, d.eventId && `event ${d.eventId}`].filter(Boolean).join(', ') : '';
  return { ok: false, lines: [`DIVERGES: ${report.divergenceCount} divergence(s) over ${summary}`, ...(d ? [`first: [${d.source}] ${d.kind}${where ? ` (${where})` : ''}: ${d.reason}`] : [])] };
}

/** Runs a command, its stdout captured and its stderr inherited; resolves its exit status and output. */
function runCaptured(cmd: string, args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.on('error', rej);
    child.on('close', (status) => res({ status, stdout }));
  });
}

/** Runs a command with inherited output, without blocking the event loop; resolves its exit status. */
function run(cmd: string, args: string[]): Promise<{ status: number | null }> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', rej);
    child.on('close', (status) => res({ status }));
  });
}

/** Settlement line written by the replayer. */
interface RecordedSettlement {
  tableId: string;
  stake: string;
  payout: string;
  status: string;
}

/**
 * Converts the first `hands` hands of the third-party history into table-log shoes spread over
 * the three tables and replays them through the API with the replayer (apps/replayer), which
 * checks every outcome against the file and writes the settlements.
 */
async function replayRecordedHands(runTag: string, hands: number): Promise<{ ok: boolean; file: string | null; settlements: RecordedSettlement[]; shoesByTable: Map<string, string[]> }> {
  const none = { ok: true, file: null, settlements: [], shoesByTable: new Map<string, string[]>() };
  if (!Number.isInteger(hands) || hands < 0) throw new Error('--hands must be a whole number');
  if (hands === 0) return none;
  if (!existsSync(HANDS_ARCHIVE)) {
    process.stderr.write(`recorded hands: ${HANDS_ARCHIVE} not found; skipping the replay of recorded play\n`);
    return none;
  }
  const log = `.stack/demo/recorded-${runTag}.jsonl`;
  const expected = `.stack/demo/recorded-${runTag}.expected.jsonl`;
  const file = `.stack/demo/recorded-settlements-${runTag}.jsonl`;
  const cli = ['tsx', 'apps/replayer/src/main.ts'];
  out('');
  out(`recorded play: converting ${hands} third-party hands into table-log shoes`);
  const conv = await run('npx', [...cli, 'convert-hands', '--file', HANDS_ARCHIVE, '--out', log, '--expected', expected, '--hands', String(hands), '--tables', DEMO_TABLES.join(','), '--shoe-prefix', `MH-${runTag}`]);
  if (conv.status !== 0) throw new Error('convert-hands failed');
  const rep = await run('npx', [...cli, 'replay', '--file', log, '--api', api, '--out', file, '--check', expected]);
  const shoesByTable = new Map<string, string[]>();
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (!line.includes('"openShoe"')) continue;
    const l = JSON.parse(line);
    shoesByTable.set(l.tableId, [...(shoesByTable.get(l.tableId) ?? []), l.shoeId]);
  }
  const tableOfShoe = new Map<string, string>();
  for (const [t, ids] of shoesByTable) for (const id of ids) tableOfShoe.set(id, t);
  const settlements = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const s = JSON.parse(l);
          return { tableId: tableOfShoe.get(s.shoeId) ?? s.tableId, stake: s.stake, payout: s.payout, status: s.status };
        })
    : [];
  return { ok: rep.status === 0, file, settlements, shoesByTable };
}

main().catch((e) => {
  process.stderr.write(`demo failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
