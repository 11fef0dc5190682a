import { isDecisionCommandKind, pendingDecisionOf, type ApiHttpRequest } from '@ledger/client';
import { LedgerClient, LedgerHttpError, sendApiRequest } from '@ledger/simulator';
import type { NumberedTableLogLine } from '@ledger/table-log';
import { apiWriteOf, approvalWriteOf, DEFAULT_REPLAY_ACTORS, ReplayActors } from './routes';
import { approvalKeyOf, idempotencyKeyOf } from './table-log-file';

/** A line the ledger refused (4xx with a stable error code). */
export interface Refusal {
  readonly line: number;
  readonly shoeId: string;
  readonly kind: string;
  /** Set when a decision line's request was taken (202) and its approval refused. */
  readonly step?: 'approval';
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/** The last event the ledger recorded for a shoe during the run (for the projection catch-up). */
export interface ShoeTail {
  readonly shoeId: string;
  readonly lastEventId: string | null;
  readonly streamVersion: number | null;
}

/** What sending a log did. */
export interface PostSummary {
  /** Lines sent (each answered, accepted or refused). */
  readonly lines: number;
  /** HTTP requests made, retries included (a decision line makes two: request and approval). */
  readonly requests: number;
  /** Lines accepted (a decision line: its request and its approval). */
  readonly accepted: number;
  /** Decision lines requested by their manager and approved by a second one. */
  readonly approvals: number;
  readonly refused: number;
  /** Refusals per error code. */
  readonly refusedByCode: Record<string, number>;
  /** The first refusals in detail, in the order they were answered. */
  readonly firstRefusals: Refusal[];
  /** Events in the answers (an idempotent re-send answers the first answer's events again). */
  readonly events: number;
  /** Rounds resulted in the answers (`RoundResulted` events). */
  readonly roundsResulted: number;
  /** Shoes, in order of first appearance in the log. */
  readonly shoes: ShoeTail[];
  readonly elapsedMs: number;
}

/** Options of {@link postTableLog}. */
export interface PostOptions {
  /** Shoes sent in parallel; each shoe's lines go one after another, in file order. @default 3 */
  readonly concurrency?: number;
  /** Token subjects for lines without `actor`. */
  readonly actors?: ReplayActors;
  /** Prefix of every line's `Idempotency-Key` (the file hash prefix). */
  readonly hashPrefix: string;
  /** Attempts per line on a transport error or a 5xx answer (idempotent, so safe). @default 5 */
  readonly attempts?: number;
  /** Refusals kept in detail. @default 20 */
  readonly refusalsKept?: number;
  /** Called after each line is answered. */
  readonly onLine?: (done: number, total: number) => void;
}

/**
 * The run stopped: the API could not be reached or kept failing (5xx) for a line, or refused the
 * replayer's token (401). Re-running the same file resumes it: lines already recorded are answered
 * from the ledger's idempotency store.
 */
export class ReplayAbortedError extends Error {
  constructor(
    public readonly line: number,
    why: string,
  ) {
    super(`line ${line}: ${why}; the run stopped (re-run the same file to resume)`);
    this.name = 'ReplayAbortedError';
  }
}

/** An error's message, with the cause's code fetch hides behind "fetch failed" (ECONNREFUSED, …). */
function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause ? `${e.message} (${cause.code ?? cause.message})` : e.message;
}

interface WriteAnswer {
  streamVersion?: number;
  events?: Array<{ eventId: string; type: string; streamVersion: number }>;
  /** A management request's answer: the pending decision (see `pendingDecisionOf`). */
  decisionId?: string;
  status?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends table-log lines through the public HTTP API: per shoe in file order, shoes in parallel
 * (a pool of `concurrency` workers takes shoes in order of first appearance). Every write carries
 * `Idempotency-Key: <hashPrefix>:<line>`, so re-sending a line after a crash, or re-running the
 * same file, records nothing new: the ledger answers the first answer.
 *
 * A management decision's line is two requests (docs/domain-rules.md §6): its command as the
 * requesting manager, answered 202 with a pending decision, then
 * `POST /decisions/{decisionId}/approve` as the line's approving manager, with their own token
 * and the key `<hashPrefix>:<line>:approve`. A re-run gets the same decision back and approves it
 * if the crash came between the two.
 *
 * A refusal (4xx) is counted with its code and the shoe goes on with its next line, as a table
 * would. A transport error or 5xx is retried (`attempts`), then the whole run stops with
 * {@link ReplayAbortedError}.
 */
export async function postTableLog(lines: readonly NumberedTableLogLine[], client: LedgerClient, options: PostOptions): Promise<PostSummary> {
  const started = performance.now();
  const concurrency = Math.max(1, options.concurrency ?? 3);
  const actors = options.actors ?? DEFAULT_REPLAY_ACTORS;
  const attempts = Math.max(1, options.attempts ?? 5);

  const byShoe = new Map<string, NumberedTableLogLine[]>();
  for (const l of lines) {
    let q = byShoe.get(l.value.shoeId);
    if (!q) byShoe.set(l.value.shoeId, (q = []));
    q.push(l);
  }
  const shoeIds = [...byShoe.keys()];
  const tally = new Tally(shoeIds, options.refusalsKept ?? 20);
  let abort: ReplayAbortedError | null = null;

  /** One request of a line, retried on a transport error or 5xx. @returns the answer, or null when refused (counted) */
  const request = async (l: NumberedTableLogLine, w: ApiHttpRequest, sub: string, key: string, step?: 'approval'): Promise<WriteAnswer | null> => {
    const headers = { 'idempotency-key': key };
    for (let attempt = 1; ; attempt++) {
      tally.requests++;
      try {
        const res = await sendApiRequest<WriteAnswer>(client, w, sub, headers);
        tally.answered(l.value.shoeId, res);
        return res ?? {};
      } catch (e) {
        if (e instanceof LedgerHttpError && e.status === 401) {
          throw new ReplayAbortedError(l.line, `the ledger refused the replayer's token (${e.code}): is JWT_SECRET the API's?`);
        }
        if (e instanceof LedgerHttpError && e.status < 500) {
          tally.refusal(l, e, step);
          return null;
        }
        if (attempt >= attempts) throw new ReplayAbortedError(l.line, `the ledger API did not answer after ${attempts} attempt(s): ${describeError(e)}`);
        await sleep(Math.min(5000, 100 * 2 ** attempt));
      }
    }
  };

  const send = async (l: NumberedTableLogLine): Promise<void> => {
    const w = apiWriteOf(l.value, actors);
    const res = await request(l, w, w.sub, idempotencyKeyOf(options.hashPrefix, l.line));
    if (!res) return;
    // a management decision: the ledger answered a pending decision; the second manager approves it
    const pending = isDecisionCommandKind(l.value.kind) ? pendingDecisionOf(res) : null;
    if (pending) {
      const a = approvalWriteOf(l.value, pending.decisionId, actors)!;
      if (!(await request(l, a, a.sub, approvalKeyOf(options.hashPrefix, l.line), 'approval'))) return;
      tally.approvals++;
    }
    tally.accepted++;
  };

  let nextShoe = 0;
  const worker = async () => {
    while (!abort && nextShoe < shoeIds.length) {
      const q = byShoe.get(shoeIds[nextShoe++])!;
      for (const l of q) {
        if (abort) return;
        try {
          await send(l);
        } catch (e) {
          abort ??= e instanceof ReplayAbortedError ? e : new ReplayAbortedError(l.line, describeError(e));
          return;
        }
        tally.done++;
        options.onLine?.(tally.done, lines.length);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, shoeIds.length)) }, worker));
  if (abort) throw abort;
  return tally.summary(shoeIds, Math.round(performance.now() - started));
}

/** What a run counted so far, and the last event the ledger recorded for each shoe. */
class Tally {
  requests = 0;
  done = 0;
  accepted = 0;
  approvals = 0;
  events = 0;
  roundsResulted = 0;
  refused = 0;
  private readonly refusedByCode: Record<string, number> = {};
  private readonly firstRefusals: Refusal[] = [];
  private readonly tails: Map<string, ShoeTail>;

  /** @param kept refusals kept in detail */
  constructor(
    shoeIds: readonly string[],
    private readonly kept: number,
  ) {
    this.tails = new Map<string, ShoeTail>(shoeIds.map((id) => [id, { shoeId: id, lastEventId: null, streamVersion: null }]));
  }

  /** Counts an answer's events and rounds resulted; its last event is the shoe's tail now. */
  answered(shoeId: string, res: WriteAnswer | undefined): void {
    const evs = res?.events ?? [];
    this.events += evs.length;
    for (const e of evs) if (e.type === 'RoundResulted') this.roundsResulted++;
    if (evs.length) this.tails.set(shoeId, { shoeId, lastEventId: evs[evs.length - 1].eventId, streamVersion: res!.streamVersion ?? evs[evs.length - 1].streamVersion });
  }

  /** Counts a line's refusal (4xx) by its code, and keeps the first ones in detail. */
  refusal(l: NumberedTableLogLine, e: LedgerHttpError, step: 'approval' | undefined): void {
    this.refused++;
    this.refusedByCode[e.code] = (this.refusedByCode[e.code] ?? 0) + 1;
    if (this.firstRefusals.length < this.kept) {
      const msg = (e.body as { error?: { message?: string } } | null)?.error?.message ?? e.message;
      this.firstRefusals.push({ line: l.line, shoeId: l.value.shoeId, kind: l.value.kind, ...(step ? { step } : {}), status: e.status, code: e.code, message: msg });
    }
  }

  /** The run's summary; `shoeIds` in order of first appearance. */
  summary(shoeIds: readonly string[], elapsedMs: number): PostSummary {
    return {
      lines: this.done,
      requests: this.requests,
      accepted: this.accepted,
      approvals: this.approvals,
      refused: this.refused,
      refusedByCode: this.refusedByCode,
      firstRefusals: this.firstRefusals,
      events: this.events,
      roundsResulted: this.roundsResulted,
      shoes: shoeIds.map((id) => this.tails.get(id)!),
      elapsedMs,
    };
  }
}
