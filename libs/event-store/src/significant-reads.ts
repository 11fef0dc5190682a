import type { DataSource } from 'typeorm';
import { SIGNIFICANT_STREAM_PREFIX, significantStreamId, upcast, type LedgerEvent } from '@ledger/events';
import { eventDataProblem } from './event-data-validation';
import { RELAY_PROGRESS_NAME } from './horizon';
import { EVENT_COLUMNS, rowToEnvelope, type EventRow } from './rows';

/** A significant event as the event store holds it: its raise and, once a second person acknowledged it, the acknowledgement. */
export interface StoredSignificantEvent {
  readonly raise: LedgerEvent<'SignificantEventRaised'>;
  readonly acknowledgement: LedgerEvent<'SignificantEventAcknowledged'> | null;
}

/** A raise or an acknowledgement of a significant event, as stored. */
export type SignificantChange = LedgerEvent<'SignificantEventRaised'> | LedgerEvent<'SignificantEventAcknowledged'>;

/**
 * A page of {@link SignificantEventLedgerReads.changes}: the raises and acknowledgements whose data
 * matches their schema, the position of the last row read (kept or not: where the next page starts),
 * and the ones left out because their data does not (stored by a login that may append, never by the
 * monitor; the projector quarantines them: docs/significant-events.md).
 */
export interface SignificantChangesPage {
  readonly items: SignificantChange[];
  /** Decimal string; null when nothing was read. */
  readonly last: string | null;
  readonly malformed: readonly { readonly eventId: string; readonly globalPosition: string; readonly problem: string }[];
}

/** Per severity, the stored significant events with no acknowledgement yet, and those of them raised before the deadline. */
export interface OpenSignificantCount {
  readonly severity: string;
  readonly unacknowledged: number;
  readonly overdue: number;
}

/**
 * The significant events read from the event store itself, not from the read model (which the
 * projector's login writes): what the routes and the escalation gauges take as the truth
 * (docs/significant-events.md, "What the read model may not decide"). Served by the partial index
 * `events_significant_idx` (migration 1799800000000) and the streams' own index.
 */
export class SignificantEventLedgerReads {
  /** @param ds an initialised, migrated DataSource */
  constructor(private readonly ds: DataSource) {}

  /**
   * The stored raise and acknowledgement of each id of `ids` (UUIDs, at most 1,000), in the order of
   * `ids`; an id with no stored raise is left out, and so is a raise or acknowledgement whose data its
   * schema refuses (`eventDataProblem`).
   * @throws RangeError for more than 1,000 ids
   */
  async byIds(ids: readonly string[]): Promise<StoredSignificantEvent[]> {
    if (ids.length > 1000) throw new RangeError('at most 1000 significant events at a time');
    if (ids.length === 0) return [];
    const rows: EventRow[] = await this.ds.query(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.stream_id = ANY($1::text[]) AND e.stream_version <= 2 ORDER BY e.stream_id, e.stream_version`, [ids.map(significantStreamId)]);
    const byStream = new Map<string, { raise?: LedgerEvent<'SignificantEventRaised'>; ack?: LedgerEvent<'SignificantEventAcknowledged'> }>();
    for (const r of rows) {
      const e = upcast(rowToEnvelope(r));
      // data its schema refuses is no raise nor acknowledgement (the projector quarantines it too)
      if (eventDataProblem(e.type, e.data) !== null) continue;
      const s = byStream.get(e.streamId) ?? {};
      if (e.type === 'SignificantEventRaised' && e.streamVersion === 1) s.raise = e as LedgerEvent<'SignificantEventRaised'>;
      if (e.type === 'SignificantEventAcknowledged' && e.streamVersion === 2) s.ack = e as LedgerEvent<'SignificantEventAcknowledged'>;
      byStream.set(e.streamId, s);
    }
    return ids.flatMap((id) => {
      const s = byStream.get(significantStreamId(id));
      return s?.raise ? [{ raise: s.raise, acknowledgement: s.ack ?? null }] : [];
    });
  }

  /**
   * The four-eyes decision of the latest `ResultCorrected` of round `roundId` in stream `streamId`
   * below version `beforeVersion`: whom a `BetResettled` there carries out (its large win names both
   * managers, docs/significant-events.md). Null when there is none (or it names no decision). Reads
   * the stream's rows through its own index.
   */
  async correctionBefore(q: { readonly streamId: string; readonly roundId: string; readonly beforeVersion: number }): Promise<{ actingManagerId: string; approverId: string } | null> {
    const rows: { acting: string | null; approver: string | null }[] = await this.ds.query(
      `SELECT e.data -> 'decision' ->> 'actingManagerId' AS acting, e.data -> 'decision' ->> 'approverId' AS approver FROM events e
        WHERE e.stream_id = $1 AND e.stream_version < $2 AND e.type = 'ResultCorrected' AND e.data ->> 'roundId' = $3
        ORDER BY e.stream_version DESC LIMIT 1`,
      [q.streamId, q.beforeVersion, q.roundId],
    );
    const r = rows[0];
    return r?.acting && r.approver ? { actingManagerId: r.acting, approverId: r.approver } : null;
  }

  /**
   * Whether the `RoundVoided` of cause `SHOE_VOIDED` at `q.beforeVersion` of `q.streamId` is part of a
   * shoe void: its `causedBy` is a `ShoeVoided` of the same stream, before it, listing `q.roundId`
   * (docs/significant-events.md: otherwise it raises `ROUND.VOIDED`).
   */
  async isShoeVoidOf(q: { readonly streamId: string; readonly roundId: string; readonly beforeVersion: number; readonly causedBy: string | null }): Promise<boolean> {
    if (!q.causedBy || !/^[0-9a-f-]{36}$/i.test(q.causedBy)) return false;
    const rows: unknown[] = await this.ds.query(`SELECT 1 FROM events s WHERE s.event_id = $1::uuid AND s.stream_id = $2 AND s.stream_version < $3 AND s.type = 'ShoeVoided' AND (s.data -> 'roundIds') ? $4`, [
      q.causedBy,
      q.streamId,
      q.beforeVersion,
      q.roundId,
    ]);
    return rows.length > 0;
  }

  /**
   * The position every significant event at or below which is final and published: the relay's
   * `outbox_progress.through_position` (docs/guarantees.md §5), decimal string; `'0'` before the first.
   */
  async publishedThrough(): Promise<string> {
    const rows: { p: string }[] = await this.ds.query(`SELECT coalesce((SELECT through_position FROM outbox_progress WHERE name = $1), 0)::text AS p`, [RELAY_PROGRESS_NAME]);
    return rows[0]?.p ?? '0';
  }

  /**
   * The raises and acknowledgements after global position `after` and at or below `through` (both
   * decimal strings), in position order, at most 500 rows read. Positions below `through` are final,
   * so a reader that moves `after` to the page's `last` misses none. A row whose data its schema
   * refuses is left out of `items` and named in `malformed`.
   */
  async changes(q: { readonly after: string; readonly through: string }): Promise<SignificantChangesPage> {
    const rows: EventRow[] = await this.ds.query(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.type IN ('SignificantEventRaised', 'SignificantEventAcknowledged')
          AND e.global_position > $1::bigint AND e.global_position <= $2::bigint ORDER BY e.global_position LIMIT 500`,
      [q.after, q.through],
    );
    const items: SignificantChange[] = [];
    const malformed: { eventId: string; globalPosition: string; problem: string }[] = [];
    for (const r of rows) {
      const e = upcast(rowToEnvelope(r)) as SignificantChange;
      const problem = eventDataProblem(e.type, e.data);
      if (problem === null) items.push(e);
      else malformed.push({ eventId: e.eventId, globalPosition: e.globalPosition, problem });
    }
    return { items, last: rows.length > 0 ? String(rows[rows.length - 1].global_position) : null, malformed };
  }

  /**
   * Per severity of `severities`, the raises of the event store with no acknowledgement (no
   * `SignificantEventAcknowledged` at version 2 of their stream: another event there, which the
   * append refuses since migration 1799900000000, acknowledges nothing), and how many of them were recorded more than `deadlineSeconds` ago by
   * PostgreSQL's clock: what the escalation gauges export. Severities with none are left out.
   */
  openCounts(q: { readonly severities: readonly string[]; readonly deadlineSeconds: number }): Promise<OpenSignificantCount[]> {
    return this.ds.query(
      `SELECT r.data ->> 'severity' AS severity, count(*)::int AS unacknowledged,
              count(*) FILTER (WHERE r.recorded_at < now() - make_interval(secs => $2))::int AS overdue
         FROM events r
        WHERE r.type = 'SignificantEventRaised' AND r.stream_id LIKE $3 AND r.data ->> 'severity' = ANY($1::text[])
          AND NOT EXISTS (SELECT 1 FROM events a WHERE a.stream_id = r.stream_id AND a.stream_version = 2 AND a.type = 'SignificantEventAcknowledged')
        GROUP BY 1 ORDER BY 1`,
      [q.severities, q.deadlineSeconds, `${SIGNIFICANT_STREAM_PREFIX}%`],
    );
  }
}
