import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import { DEFAULT_EVENTS_TOPIC, type LedgerApiEnv } from '@ledger/config';
import { PgEventStore } from '@ledger/event-store';
import type { LedgerEvent } from '@ledger/events';
import { gamingDay, type GamingDayConfig } from '@ledger/projections';
import { foldEntries, type LedgerEntry, type LedgerEntryLine, type ReadModel } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { DATA_SOURCE, EVENT_STORE, READ_MODEL } from '../kernel/tokens';
import { rows as sqlRows } from '../kernel/sql';
import type { Adjustment } from '../kernel/closes/adjustments';
import { recordIncident } from '../kernel/integrity-incidents';
import { clockSkewStreams } from './close-clock-skew';

/** Something SQL can be run on: the DataSource, or one transaction's manager (a snapshot). */
export type Queryable = Pick<DataSource, 'query'>;

/** One disagreement between the read model and the verified events (at most {@link MAX_PROBLEMS} are kept). */
export interface EntryProblem {
  /** `CHAIN_BROKEN` (the stream's hash chain does not verify), `ENTRY_MISMATCH` (an entry differs, is missing or is extra), `ADJUSTMENT_MISMATCH` (an adjustment's event says otherwise). */
  readonly kind: 'CHAIN_BROKEN' | 'ENTRY_MISMATCH' | 'ADJUSTMENT_MISMATCH';
  readonly streamId: string | null;
  readonly globalPosition: string | null;
  readonly detail: string;
}

const MAX_PROBLEMS = 20;

/** A close about to be signed: its day, table set and position, the genuine closes before it, and its report's adjustments. */
export interface CloseUnderCheck {
  readonly day: string;
  readonly tableIds: readonly string[];
  readonly position: bigint;
  /** The genuine closes below `position` (`CloseRecords.genuineBefore`): an entry after its day's close is an adjustment. */
  readonly closes: readonly { readonly gamingDay: string; readonly tableIds: readonly string[]; readonly throughPosition: bigint }[];
  readonly adjustments: readonly Adjustment[];
}

/** An entry as one comparable line (the fold's and the row's give the same line when they agree). */
function entryLine(e: LedgerEntry): string {
  const d = e.dropped;
  return [
    e.globalPosition.toString(),
    e.entryNo,
    e.eventId,
    e.eventType,
    new Date(e.recordedAt).toISOString(),
    e.gamingDay,
    e.tableId,
    e.shoeId,
    e.roundId,
    e.betId ?? '',
    e.dealerId,
    e.currency,
    e.turnover,
    e.payouts,
    e.correctionPayoutDelta,
    e.voidedStakes,
    e.betsSettled,
    e.betsRefunded,
    e.betsResettled,
    e.roundsResulted,
    e.roundsVoided,
    e.corrections,
    ratio(BigInt(d.num), BigInt(d.den)),
  ].join('|');
}

function rowLine(r: LedgerEntryLine): string {
  return [
    r.global_position,
    r.entry_no,
    r.event_id,
    r.event_type,
    r.recorded_at,
    r.gaming_day,
    r.table_id,
    r.shoe_id,
    r.round_id,
    r.bet_id ?? '',
    r.dealer_id,
    r.currency,
    r.turnover,
    r.payouts,
    r.correction_payout_delta,
    r.voided_stakes,
    r.bets_settled,
    r.bets_refunded,
    r.bets_resettled,
    r.rounds_resulted,
    r.rounds_voided,
    r.corrections,
    ratio(BigInt(r.dropped_num), BigInt(r.dropped_den)),
  ].join('|');
}

/** A fraction in lowest terms, `num/den` (equal fractions give equal text whatever their denominators). */
function ratio(num: bigint, den: bigint): string {
  if (num === 0n) return '0';
  const g = gcd(num < 0n ? -num : num, den);
  return `${num / g}/${den / g}`;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/**
 * The check a signed report's figures pass before they are signed (docs/reports.md §2, "Signed figures
 * come from the verified events"): the read model's entries a close sums are compared with the
 * entries the events give. Which shoes: every shoe with a round opened on the day at the table set
 * (from the events), every shoe with an entry the report may sum (the day's, and those after an
 * earlier day's close: the adjustments), and every shoe holding a device's event of the day at the
 * table set (the events the report's clock skew is computed from). For each: its hash chain is verified, its
 * events up to the close's position are folded with the reconciliation rule ({@link foldEntries}), and
 * the entries must equal the read model's `ledger_entries` rows of that shoe up to the same position,
 * field for field, none missing, none extra. Each adjustment of the report must say what its event
 * says (position, decision, reason, managers, compensated event).
 *
 * The read model is written by the projector's login; the events only through the append function
 * (hash-chained, anchored). A close whose read model disagrees with the events is refused: nothing
 * is signed from figures a login can write.
 */
@Injectable()
export class CloseEntriesCheck {
  private readonly logger = new Logger('CloseEntriesCheck');
  private readonly dayRule: GamingDayConfig;
  /** This ledger's events topic where it is not the database's only ledger (not the default topic), else null. */
  private readonly scope: string | null;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    const topic = config.get('LEDGER_EVENTS_TOPIC', { infer: true });
    this.scope = topic === DEFAULT_EVENTS_TOPIC ? null : topic;
    this.dayRule = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
  }

  /**
   * The disagreements between the read model (through `q`, e.g. the close's snapshot) and the verified
   * events, for a close of `day` and `tableIds` at `position`, the genuine earlier closes being `closes`.
   * @returns at most 20 problems; none when the read model is the events'
   */
  async problems(q: Queryable, close: CloseUnderCheck): Promise<EntryProblem[]> {
    const out: EntryProblem[] = [];
    for (const streamId of await this.streamsOf(q, close)) {
      if (out.length >= MAX_PROBLEMS) break;
      out.push(...(await this.checkStream(q, streamId, close.position)));
    }
    if (out.length < MAX_PROBLEMS) out.push(...(await this.checkAdjustments(close.adjustments)));
    return out.slice(0, MAX_PROBLEMS);
  }

  /**
   * Refuses the close when {@link problems} finds any: records the incident (`integrity_incidents`,
   * append-only) and throws.
   * @throws ApiError 500 `GAMING_DAY.READ_MODEL_DIVERGED`
   */
  async assertAgrees(q: Queryable, close: CloseUnderCheck): Promise<void> {
    const problems = await this.problems(q, close);
    if (problems.length === 0) return;
    const first = problems[0];
    const details = { day: close.day, tableIds: close.tableIds.join(','), throughPosition: close.position.toString(), kind: first.kind, streamId: first.streamId, problems: problems.length };
    await recordIncident(this.ds, { kind: 'READ_MODEL_DIVERGED', code: 'GAMING_DAY.READ_MODEL_DIVERGED', subject: `gaming-day ${close.day} ${close.tableIds.join(',')}`, details: { ...details, found: problems } });
    this.logger.error(`close of gaming day ${close.day} refused: the read model disagrees with the verified events (${first.kind} ${first.streamId ?? ''} ${first.detail.slice(0, 200)})`);
    throw new ApiError(
      'GAMING_DAY.READ_MODEL_DIVERGED',
      `gaming day ${close.day} is not closed: the read model disagrees with the verified events (${first.kind}${first.streamId ? ` in ${first.streamId}` : ''}); an incident is recorded`,
      details,
    );
  }

  /** The shoe streams whose entries a close of the day may sum (see the class comment), sorted. */
  private async streamsOf(q: Queryable, c: CloseUnderCheck): Promise<string[]> {
    const tables = [...c.tableIds];
    const p = c.position.toString();
    // where several ledgers share one database (each its own events topic: the test suites), only this
    // ledger's events, by their outbox rows' topic; the database's one ledger owns every event
    const own = this.scope === null ? '' : `AND EXISTS (SELECT 1 FROM outbox o WHERE o.global_position = e.global_position AND o.topic = '${this.scope.replace(/'/g, "''")}')`;
    // rounds opened on the day, from the events (a window of the day ± 2 days, then the gaming-day rule exactly)
    const [y, m, d] = c.day.split('-').map(Number);
    const from = new Date(Date.UTC(y, m - 1, d - 2)).toISOString();
    const to = new Date(Date.UTC(y, m - 1, d + 3)).toISOString();
    const opened = await sqlRows<{ stream_id: string; recorded_at: string }>(
      this.ds,
      `SELECT e.stream_id, to_char(e.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at FROM events e
        WHERE e.type = 'RoundOpened' AND e.table_id = ANY($1::text[]) AND e.recorded_at >= $2::timestamptz AND e.recorded_at < $3::timestamptz AND e.global_position <= $4::bigint ${own}`,
      [tables, from, to, p],
    );
    // every entry the report may sum: the day's, and those after the close of an earlier closed day (adjustments)
    const closed = c.closes.flatMap((x) => x.tableIds.filter((t) => tables.includes(t)).map((t) => ({ gaming_day: x.gamingDay, table_id: t, through: x.throughPosition.toString() })));
    const claimed = await this.readModel.on(q).reconciliation.shoesWithEntries(tables, c.day, c.position, closed);
    const streams = new Set<string>();
    for (const r of opened) if (gamingDay(r.recorded_at, this.dayRule) === c.day) streams.add(r.stream_id);
    for (const shoeId of claimed) streams.add(`shoe-${shoeId}`);
    // the streams of the device events whose clock skew the report states (docs/architecture.md §9)
    for (const s of await clockSkewStreams(this.ds, { day: c.day, tableIds: tables, position: c.position, dayRule: this.dayRule, topic: this.scope })) streams.add(s);
    return [...streams].sort();
  }

  private async checkStream(q: Queryable, streamId: string, position: bigint): Promise<EntryProblem[]> {
    const chain = await this.store.verifyChain(streamId);
    if (!chain.ok) {
      const p = chain.problems[0];
      return [{ kind: 'CHAIN_BROKEN', streamId, globalPosition: null, detail: `the stream's hash chain does not verify: ${JSON.stringify(p).slice(0, 300)}` }];
    }
    const events: LedgerEvent[] = (await this.store.readStream(streamId)).filter((e) => BigInt(e.globalPosition) <= position);
    const expected = [...foldEntries(events, this.dayRule)].map(entryLine);
    const rows = await this.readModel.on(q).reconciliation.entriesOfShoe(streamId.slice('shoe-'.length), position);
    const actual = rows.map(rowLine);
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      if (expected[i] === actual[i]) continue;
      const at = (expected[i] ?? actual[i]).split('|')[0];
      const what = expected[i] === undefined ? 'an entry no event gives' : actual[i] === undefined ? 'an entry of the events is missing' : 'an entry differs from the events';
      return [{ kind: 'ENTRY_MISMATCH', streamId, globalPosition: at, detail: `${what}: events ${expected[i] ?? '(none)'} / read model ${actual[i] ?? '(none)'}`.slice(0, 600) }];
    }
    return [];
  }

  /** Each adjustment against its event: position and the decision's fields (id, reason, managers, the event compensated). */
  private async checkAdjustments(adjustments: readonly Adjustment[]): Promise<EntryProblem[]> {
    if (adjustments.length === 0) return [];
    const ids = [...new Set(adjustments.map((a) => a.eventId))];
    const rows = await sqlRows<{ event_id: string; stream_id: string; global_position: string; data: unknown }>(
      this.ds,
      `SELECT event_id::text AS event_id, stream_id, global_position::text AS global_position, data FROM events WHERE event_id::text = ANY($1::text[])`,
      [ids],
    );
    const byId = new Map(rows.map((e) => [e.event_id, { streamId: e.stream_id, globalPosition: e.global_position, data: e.data }]));
    const out: EntryProblem[] = [];
    for (const a of adjustments) {
      const e = byId.get(a.eventId);
      const d = (e?.data ?? {}) as { decision?: { decisionId?: string; reason?: string; actingManagerId?: string; approverId?: string; compensates?: string } | null; compensates?: string };
      const dec = d.decision ?? null;
      const expected = e
        ? {
            globalPosition: String(e.globalPosition),
            decisionId: dec?.decisionId ?? null,
            reason: dec?.reason ?? null,
            actingManagerId: dec?.actingManagerId ?? null,
            approverId: dec?.approverId ?? null,
            compensates: dec?.compensates ?? null,
          }
        : null;
      const actual = { globalPosition: a.globalPosition, decisionId: a.decisionId, reason: a.reason, actingManagerId: a.actingManagerId, approverId: a.approverId, compensates: a.compensates };
      if (!expected || JSON.stringify(expected) !== JSON.stringify(actual)) {
        out.push({
          kind: 'ADJUSTMENT_MISMATCH',
          streamId: e?.streamId ?? null,
          globalPosition: a.globalPosition,
          detail: `adjustment of round ${a.roundId}: event ${JSON.stringify(expected)} / report ${JSON.stringify(actual)}`.slice(0, 600),
        });
      }
    }
    return out;
  }
}
