import { LedgerClient } from '@ledger/simulator';
import type { TableLogError } from '@ledger/table-log';
import { jwtSecret } from '@ledger/tokens';
import { AgreementReport, checkAgreement, readExpected } from './agreement';
import { postTableLog, PostSummary } from './post-lines';
import { DEFAULT_REPLAY_ACTORS, ReplayActors } from './routes';
import { CatchUp, waitForProjections, writeSettlements } from './settlements';
import { LoadedTableLog, loadTableLog } from './table-log-file';

/** Options of {@link runReplay}: the `replay` command's options. */
export interface ReplayRunOptions {
  /** The table log (JSONL). */
  readonly file: string;
  /** Base URL of the ledger API. @default http://127.0.0.1:3000 */
  readonly api: string;
  /** JWT secret for the replayer's tokens. @default `JWT_SECRET`, or in development mode the development secret (`jwtSecret()`) */
  readonly secret?: string;
  /** Shoes in parallel. @default 3 */
  readonly concurrency?: number;
  /** Send the valid lines of a file that has bad ones (default: refuse the file, send nothing). */
  readonly skipBad?: boolean;
  /** Where to write settlements; null = skip catch-up and settlements (`--no-settlements`). */
  readonly settlementsOut: string | null;
  /** Expected file for the agreement check, or null. */
  readonly check: string | null;
  /** How long to wait for the projections to catch up. @default 120000 */
  readonly catchUpTimeoutMs?: number;
  /** Token subjects for lines without `actor`. */
  readonly actors?: ReplayActors;
  /** Called once the file is read and valid enough to send, with the number of lines to send. */
  readonly onStart?: (lines: number) => void;
  /** Called after each line is answered. */
  readonly onLine?: (done: number, total: number) => void;
  /** Called when a step starts (`catch-up`, `settlements`, `check`). */
  readonly onStep?: (step: string) => void;
}

/** Everything a replay did; `exitCode` is what the CLI exits with. */
export interface ReplayRunReport {
  readonly file: string;
  readonly sha256: string;
  readonly hashPrefix: string;
  readonly totalLines: number;
  readonly validLines: number;
  readonly badLines: number;
  /** The first problems of bad lines (all of them are counted in `badLines`). */
  readonly errors: TableLogError[];
  /** True when the file had bad lines and `skipBad` was off: nothing was sent. */
  readonly refusedFile: boolean;
  readonly posted: PostSummary | null;
  readonly catchUp: CatchUp | null;
  readonly settlements: { readonly file: string; readonly lines: number } | null;
  /** Why the settlements step failed, when it did. */
  readonly settlementsError: string | null;
  readonly agreement: AgreementReport | null;
  /** 0 all good; 1 refusals, disagreements, catch-up timeout or settlements failure; 2 bad lines without `skipBad`. */
  readonly exitCode: 0 | 1 | 2;
}

/** Errors of bad lines kept in the report. */
const ERRORS_KEPT = 50;

/**
 * The `replay` command without its terminal: validate the file (refuse it before sending anything
 * when a line is bad, unless `skipBad`), send every line (see {@link postTableLog}), then, unless
 * settlements are off, wait for the projections to apply each shoe's last event and write the
 * settlements; then, with `check`, compare each round's recorded outcome with the expected file.
 * The agreement check reads the event store (always current once a write is answered), so it
 * needs no catch-up.
 * @throws ReplayAbortedError when the API stops answering; Error when a file cannot be read
 */
export async function runReplay(o: ReplayRunOptions, loaded?: LoadedTableLog): Promise<ReplayRunReport> {
  const log = loaded ?? (await loadTableLog(o.file));
  const base = {
    file: o.file,
    sha256: log.sha256,
    hashPrefix: log.hashPrefix,
    totalLines: log.totalLines,
    validLines: log.lines.length,
    badLines: log.badLines,
    errors: log.errors.slice(0, ERRORS_KEPT),
  };
  if (log.badLines > 0 && !o.skipBad) {
    return { ...base, refusedFile: true, posted: null, catchUp: null, settlements: null, settlementsError: null, agreement: null, exitCode: 2 };
  }
  const expected = o.check ? await readExpected(o.check) : null; // read before sending: fail early on a bad path
  // the replayer's device tokens name the tables its shoes open on (docs/architecture.md §10)
  const deviceTables = [...new Set(log.lines.flatMap((l) => (l.value.kind === 'openShoe' ? [l.value.tableId] : [])))];
  const client = new LedgerClient(o.api.replace(/\/+$/, ''), o.secret ?? jwtSecret(), { deviceTables });
  o.onStart?.(log.lines.length);
  const posted = await postTableLog(log.lines, client, {
    hashPrefix: log.hashPrefix,
    concurrency: o.concurrency ?? 3,
    actors: o.actors ?? DEFAULT_REPLAY_ACTORS,
    onLine: o.onLine,
  });
  let exitCode: 0 | 1 = posted.refused > 0 ? 1 : 0;

  let catchUp: CatchUp | null = null;
  let settlements: ReplayRunReport['settlements'] = null;
  let settlementsError: string | null = null;
  if (o.settlementsOut) {
    o.onStep?.('catch-up');
    catchUp = await waitForProjections(client, posted.shoes, { timeoutMs: o.catchUpTimeoutMs ?? 120_000 });
    if (!catchUp.caughtUp) {
      settlementsError = `the projections did not catch up within ${Math.round((o.catchUpTimeoutMs ?? 120_000) / 1000)} s (${catchUp.pending.length} shoe(s) pending${catchUp.lastError ? `; last answer ${catchUp.lastError}` : ''}): no settlements written`;
      exitCode = 1;
    } else {
      o.onStep?.('settlements');
      try {
        const n = await writeSettlements(
          client,
          posted.shoes.map((s) => s.shoeId),
          o.settlementsOut,
        );
        settlements = { file: o.settlementsOut, lines: n };
      } catch (e) {
        settlementsError = `reading settlements failed: ${(e as Error).message}`;
        exitCode = 1;
      }
    }
  }

  let agreement: AgreementReport | null = null;
  if (expected) {
    o.onStep?.('check');
    agreement = await checkAgreement(client, expected);
    if (agreement.disagree > 0) exitCode = 1;
  }
  return { ...base, refusedFile: false, posted, catchUp, settlements, settlementsError, agreement, exitCode };
}
