/**
 * The fault run's load: seeded simulated shoes dealt through the HTTP API, shoes of different
 * tables concurrently, each action retried with the SAME Idempotency-Key (the key runShoeScript
 * would use, prefixed by the run) on a connection error, a timeout or a 5xx, until the API gives a
 * definite answer. A 2xx is recorded (every event id it names); a 4xx is an unexpected response
 * (idempotency must answer a retry of an applied action with its first answer, never a refusal)
 * and stops that shoe, since later actions depend on it. A management action is two requests,
 * four eyes (docs/domain-rules.md §6): `fault-pm-1` requests it (202, a pending decision), then
 * `fault-pm-2` approves that decision with their own token (201, key `<action key>:approve`, retried
 * the same way); the events of both answers are the action's.
 */
import { isDecisionCommandKind, pendingDecisionOf } from '@ledger/client';
import { approvalRoute, LedgerClient, route, type RunnerActors, type ShoeScript } from '@ledger/simulator';
import { sleep, type FaultLog } from './cluster';

/** The driver's table device, betting platform and two pit managers (requester and approver). */
const ACTORS: RunnerActors = { device: 'fault-device', platform: 'fault-platform', manager: 'fault-pm-1', approver: 'fault-pm-2' };

/** An event the API accepted, as its 2xx answer named it. */
export interface AcceptedEvent {
  readonly eventId: string;
  readonly type: string;
  readonly streamVersion: number;
  readonly globalPosition: string;
  readonly data: Record<string, unknown>;
  readonly shoeId: string;
  readonly actionIndex: number;
}

/** A 4xx (or a give-up) where a definite 2xx was expected. */
export interface UnexpectedResponse {
  readonly shoeId: string;
  readonly actionIndex: number;
  readonly action: string;
  readonly status: number | null;
  readonly code: string;
  readonly attempts: number;
}

export interface DriverStats {
  requests: number;
  retries: number;
  connectionErrors: number;
  timeouts: number;
  serverErrors: number;
  actionsDone: number;
  shoesFinished: number;
}

export interface DriverOptions {
  readonly baseUrl: string;
  readonly jwtSecret: string;
  readonly scripts: readonly ShoeScript[];
  /** Prefix of every Idempotency-Key (unique per run). */
  readonly keyPrefix: string;
  /** One request's timeout (then retried). @default 15000 */
  readonly requestTimeoutMs?: number;
  /** How long one action may keep failing before the driver gives up on its shoe. @default 180000 */
  readonly actionDeadlineMs?: number;
  /** Awaited before each action: the fault schedule holds the load at a fault's point until that fault has started. */
  readonly gate?: () => Promise<void>;
  readonly log: FaultLog;
}

/** Deals the shoes; see the file comment. Shoes of one table one after the other, tables in parallel. */
export class ShoeDriver {
  readonly accepted = new Map<string, AcceptedEvent>();
  /** shoeId → per action index, the event ids of its answers (a management action: request, then approval). */
  readonly answers = new Map<string, string[][]>();
  readonly unexpected: UnexpectedResponse[] = [];
  readonly stats: DriverStats = { requests: 0, retries: 0, connectionErrors: 0, timeouts: 0, serverErrors: 0, actionsDone: 0, shoesFinished: 0 };
  /** When each 2xx arrived (ms since the epoch), in order: the longest gap is how long the API was unavailable to the load. */
  readonly answeredAt: number[] = [];
  /** Accepted ids named again by a later answer of ANOTHER action (would mean an action was answered with someone else's events). */
  readonly crossAnswered: string[] = [];
  readonly totalActions: number;
  private readonly client: LedgerClient;
  /** Requests sent and not yet answered, now. */
  inFlight = 0;
  private finished = false;
  private aborted = false;

  constructor(private readonly o: DriverOptions) {
    this.client = new LedgerClient(o.baseUrl, o.jwtSecret, { deviceTables: [...new Set(o.scripts.map((s) => s.table.tableId))] });
    this.totalActions = o.scripts.reduce((n, s) => n + s.actions.length, 0);
  }

  get done(): boolean {
    return this.finished;
  }

  /** Stops the load: every pending action gives up at its next attempt (the run failed elsewhere). */
  abort(): void {
    this.aborted = true;
  }

  /** Fraction of all actions answered so far (0..1). */
  get progress(): number {
    return this.totalActions === 0 ? 1 : this.stats.actionsDone / this.totalActions;
  }

  async run(): Promise<void> {
    const byTable = new Map<string, ShoeScript[]>();
    for (const s of this.o.scripts) byTable.set(s.table.tableId, [...(byTable.get(s.table.tableId) ?? []), s]);
    try {
      await Promise.all(
        [...byTable.values()].map(async (shoes) => {
          for (const s of shoes) await this.deal(s);
        }),
      );
    } finally {
      this.finished = true;
    }
  }

  private async deal(script: ShoeScript): Promise<void> {
    const answers: string[][] = [];
    this.answers.set(script.shoeId, answers);
    const s = `/shoes/${encodeURIComponent(script.shoeId)}`;
    for (let i = 0; i < script.actions.length; i++) {
      await this.o.gate?.();
      const a = script.actions[i];
      const [role, sub, path, body] = route(a, s, ACTORS);
      const key = `${this.o.keyPrefix}:${script.shoeId}:${i}`;
      const res = await this.send(path, this.client.token(role, sub), key, body);
      if (res.kind !== 'ok') return this.stop(script.shoeId, i, a.kind, res);
      const ids = this.record(script.shoeId, i, res.body);
      // a management decision: the second pit manager approves the decision the answer names
      const pending = isDecisionCommandKind(a.kind) ? pendingDecisionOf(res.body) : null;
      if (pending) {
        const [aRole, aSub, aPath, aBody] = approvalRoute(pending.decisionId, ACTORS);
        const approved = await this.send(aPath, this.client.token(aRole, aSub), `${key}:approve`, aBody);
        if (approved.kind !== 'ok') return this.stop(script.shoeId, i, `${a.kind} approval`, approved);
        ids.push(...this.record(script.shoeId, i, approved.body));
      }
      answers[i] = ids;
      this.stats.actionsDone++;
    }
    this.stats.shoesFinished++;
  }

  /** Records the events of one answer of action `i`; @returns their ids, in order. */
  private record(shoeId: string, i: number, body: { events?: Omit<AcceptedEvent, 'shoeId' | 'actionIndex'>[] }): string[] {
    const ids: string[] = [];
    for (const e of body.events ?? []) {
      const prior = this.accepted.get(e.eventId);
      if (prior && (prior.shoeId !== shoeId || prior.actionIndex !== i)) this.crossAnswered.push(e.eventId);
      this.accepted.set(e.eventId, { ...e, shoeId, actionIndex: i });
      ids.push(e.eventId);
    }
    return ids;
  }

  /** An unexpected answer: recorded and logged; the shoe stops (later actions depend on this one). */
  private stop(shoeId: string, i: number, action: string, res: { status: number | null; code: string; attempts: number }): void {
    this.unexpected.push({ shoeId, actionIndex: i, action, status: res.status, code: res.code, attempts: res.attempts });
    this.o.log(`UNEXPECTED ${res.status ?? 'no answer'} ${res.code} for ${shoeId} action ${i} (${action}) after ${res.attempts} attempt(s); this shoe stops`);
  }

  /** POSTs until a definite answer: 2xx → ok; 4xx → refused; network error / timeout / 5xx → again, same key. */
  private async send(
    path: string,
    token: string,
    key: string,
    body: unknown,
  ): Promise<{ kind: 'ok'; body: { events?: Omit<AcceptedEvent, 'shoeId' | 'actionIndex'>[] } } | { kind: 'refused'; status: number | null; code: string; attempts: number }> {
    const deadline = Date.now() + (this.o.actionDeadlineMs ?? 180_000);
    let backoff = 100;
    for (let attempt = 1; ; attempt++) {
      if (this.aborted) return { kind: 'refused', status: null, code: 'ABORTED', attempts: attempt - 1 };
      this.stats.requests++;
      if (attempt > 1) this.stats.retries++;
      let status: number | null = null;
      let code = '';
      this.inFlight++;
      try {
        const res = await fetch(`${this.o.baseUrl}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(this.o.requestTimeoutMs ?? 15_000),
        });
        status = res.status;
        const text = await res.text();
        const parsed = text ? JSON.parse(text) : null;
        if (res.ok) {
          this.answeredAt.push(Date.now());
          return { kind: 'ok', body: parsed ?? {} };
        }
        code = parsed?.error?.code ?? `HTTP.${res.status}`;
        if (res.status < 500) return { kind: 'refused', status: res.status, code, attempts: attempt };
        this.stats.serverErrors++;
      } catch (err) {
        // the API died, restarts, or hung up mid-answer: ambiguous, so ask again with the same key
        const name = (err as Error)?.name;
        if (name === 'TimeoutError' || name === 'AbortError') this.stats.timeouts++;
        else this.stats.connectionErrors++;
        code = name === 'TimeoutError' ? 'TIMEOUT' : String((err as { cause?: { code?: string } })?.cause?.code ?? (err as Error)?.message ?? err);
      } finally {
        this.inFlight--;
      }
      if (this.aborted) return { kind: 'refused', status, code: `ABORTED(${code})`, attempts: attempt };
      if (Date.now() >= deadline) return { kind: 'refused', status, code: `GAVE_UP(${code})`, attempts: attempt };
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 1000);
    }
  }
}
