import { parseCard, RANKS, RulesError } from '@ledger/rules';
import type { LedgerEvent, LedgerEventMap } from '@ledger/events';
import { type Projection, ProjectionError, type ProjectionTx, shoeIdOf } from '@ledger/projections';
import { SHOE_STATE_TABLE, type ShoeStateRow } from './tables';

/**
 * `shoe_state`: one row per shoe: settings snapshot, status, dealer, hand number, the card
 * accounting (docs/domain-rules.md §1, §5), commencement (docs/domain-rules.md §5.1), cut card
 * (docs/domain-rules.md §5.2), void and close.
 *
 * Card accounting follows the write side's (`libs/shoe` accounting.ts / evolve.ts) exactly:
 * - out of the shoe: the commencement card and every burn (`burned`), cards dealt (`dealt`),
 *   unneeded cards (docs/domain-rules.md §5.3, `unneeded`), cards exposed while bets are open, while dealing or
 *   between rounds (`exposed`; not during shuffle or commencement), cards dropped during dealing
 *   and not exposed before leaving view (docs/domain-rules.md §5.5, `dropped`; other drops are reused);
 * - a CommencementCorrected puts the recorded commencement card back and takes the corrected one;
 *   a ResultCorrected puts the round's recorded cards back and takes the corrected ones (the
 *   record was wrong; those cards never left);
 * - a card whose face nobody saw (burned face down, dropped unseen) counts in `cards_out` and
 *   `cards_unseen` but in no rank; so `cards_remaining_by_rank` (decks × 4 minus the known cards
 *   out, per rank) sums to `cards_remaining + cards_unseen`.
 *
 * Status mirrors the write side's ShoeStatus: OPEN → COMMENCING → READY ⇄ IN_ROUND, then CLOSED
 * or VOIDED. `last_hand_round_id` (docs/domain-rules.md §5.2): the round during which the cut card came out; when it
 * came out before a round's dealing, the round before that one; between rounds, the last round.
 *
 * Stream bookkeeping (`stream_version`, `last_event_id`, `last_global_position`) is written by
 * the applier once per transaction, not here. Reads nothing but its own row.
 */
export const shoeStateProjection: Projection = {
  name: 'shoe_state',
  // one row per shoe: in a table's scope, in no single gaming day's
  tables: [{ name: SHOE_STATE_TABLE, orderBy: 'shoe_id COLLATE "C"', scope: { tableId: (p) => `table_id = ${p}` } }],
  async preload(events: readonly LedgerEvent[], tx: ProjectionTx): Promise<void> {
    // the rows of the batch's shoes, opened in an earlier transaction, in one statement
    const opened = new Set(events.filter((e) => e.type === 'ShoeOpened').map(shoeIdOf));
    await tx.preload(
      SHOE_STATE_TABLE,
      'shoe_id',
      events
        .filter((e) => e.streamId.startsWith('shoe-'))
        .map(shoeIdOf)
        .filter((id) => !opened.has(id)),
    );
  },
  async apply(e: LedgerEvent, tx: ProjectionTx): Promise<void> {
    const shoeId = shoeIdOf(e);
    if (e.type === 'ShoeOpened') return openShoe(e as LedgerEvent<'ShoeOpened'>, tx);
    // neither (bets, betting closed, settlements): nothing about the shoe itself
    return applyCardEvent(e, tx, shoeId) ?? applyRoundOrShoeEvent(e, tx, shoeId);
  },
};

/**
 * The events that move cards: out of the shoe (commencement card, burns, dealt, exposed, dropped,
 * unneeded) or back (the corrections). Undefined for any other event, or one that moves none.
 */
function applyCardEvent(e: LedgerEvent, tx: ProjectionTx, shoeId: string): Promise<void> | undefined {
  switch (e.type) {
    case 'CommencementCardDrawn':
      return fold(tx, shoeId, e, moveCards('burned', [e.data.card]), (r) => ({
        status: r.status === 'CLOSED' || r.status === 'VOIDED' ? r.status : 'COMMENCING',
        commencement_card: e.data.card,
        commencement_burn_count: e.data.burnCount,
        commencement_burns_done: 0,
        commencement_event_id: e.eventId,
      }));
    case 'CommencementCorrected':
      return correctCommencement(tx, shoeId, e as LedgerEvent<'CommencementCorrected'>);
    case 'CardBurned': {
      const commencement = e.data.phase === 'COMMENCEMENT';
      return fold(tx, shoeId, e, moveCards('burned', [e.data.card]), (r) =>
        commencement
          ? {
              burns: r.burns + 1,
              commencement_burns_done: r.commencement_burns_done + 1,
              // SQL's `done + 1 >= count` with a NULL count is not true
              status: r.status === 'COMMENCING' && r.commencement_burn_count !== null && r.commencement_burns_done + 1 >= r.commencement_burn_count ? 'READY' : r.status,
            }
          : { burns: r.burns + 1 },
      );
    }
    case 'CardDealt':
      return fold(tx, shoeId, e, moveCards('dealt', [e.data.card]), null);
    case 'CardExposed':
      if (e.data.phase === 'COMMENCEMENT' || e.data.phase === 'SHUFFLE') return undefined;
      return fold(tx, shoeId, e, moveCards('exposed', [e.data.card]), null);
    case 'CardDropped':
      if (e.data.phase !== 'DEALING' || e.data.exposedBeforeLeavingView) return undefined;
      return fold(tx, shoeId, e, moveCards('dropped', [e.data.card]), null);
    case 'UnneededCardDrawn':
      return fold(tx, shoeId, e, moveCards('unneeded', [e.data.card]), null);
    case 'ResultCorrected':
      return fold(tx, shoeId, e, correctedCards(e as LedgerEvent<'ResultCorrected'>), null);
    default:
      return undefined;
  }
}

/** The events of the rounds and of the shoe itself: status, hand number, cut card, void, close, dealer. Undefined for any other event. */
function applyRoundOrShoeEvent(e: LedgerEvent, tx: ProjectionTx, shoeId: string): Promise<void> | undefined {
  switch (e.type) {
    case 'RoundOpened':
      return fold(tx, shoeId, e, null, (r) => ({
        status: r.status === 'CLOSED' || r.status === 'VOIDED' ? r.status : 'IN_ROUND',
        hand_number: e.data.handNumber,
        previous_round_id: r.current_round_id,
        current_round_id: e.data.roundId,
      }));
    case 'CutCardDrawn': {
      const d = e.data;
      return fold(tx, shoeId, e, null, (r) => ({
        cut_card_drawn: true,
        cut_card_timing: d.timing,
        cut_card_round_id: d.roundId,
        last_hand_round_id: d.timing === 'DURING_DEALING' ? d.roundId : d.timing === 'BEFORE_DEALING' ? r.previous_round_id : r.current_round_id,
      }));
    }
    case 'RoundResulted':
      return fold(tx, shoeId, e, null, (r) => ({ status: idleStatus(r) }));
    case 'RoundVoided':
      // a round voided while in progress (bets open or dealing) ends it: the shoe is idle again.
      // In progress = the shoe is IN_ROUND and this is its current round (a round is resulted or
      // voided before the next one opens, and either makes the shoe idle), from its own row.
      return fold(tx, shoeId, e, null, (r) => ({ status: r.status === 'IN_ROUND' && r.current_round_id === e.data.roundId ? idleStatus(r) : r.status }));
    case 'ShoeVoided': {
      const dec = e.data.decision;
      return fold(tx, shoeId, e, null, () => ({
        status: 'VOIDED',
        voided: true,
        void_event_id: e.eventId,
        void_reason: dec.reason,
        void_actor_id: dec.actingManagerId,
        void_approver_id: dec.approverId,
        voided_at: e.occurredAt,
      }));
    }
    case 'ShoeClosed':
      return fold(tx, shoeId, e, null, (r) => ({
        status: r.voided ? 'VOIDED' : 'CLOSED',
        closed: true,
        rounds_played: e.data.roundsPlayed,
        closed_at: e.occurredAt,
      }));
    case 'DealerChanged':
      return fold(tx, shoeId, e, null, () => ({ dealer_id: e.data.dealerId }));
    default:
      return undefined;
  }
}

/** The columns of a `shoe_state` row the folded changes read (node-postgres types). */
type ShoeRow = Pick<ShoeStateRow, 'status' | 'burns' | 'commencement_burn_count' | 'commencement_burns_done' | 'current_round_id' | 'previous_round_id' | 'voided'>;

/** Idle status once no round is in progress (the write side's `idleStatus`), from the row before the event. */
function idleStatus(r: ShoeRow): string {
  if (r.status === 'CLOSED' || r.status === 'VOIDED') return r.status;
  return r.commencement_burns_done >= (r.commencement_burn_count ?? 0) ? 'READY' : 'COMMENCING';
}

type CardUse = 'dealt' | 'burned' | 'unneeded' | 'exposed' | 'dropped';

/** Cards leaving the shoe under one use: count, unseen faces, known cards by rank (negative = put back). */
interface CardMove {
  readonly use: CardUse;
  readonly count: number;
  readonly unseen: number;
  readonly byRank: Record<string, number>;
}

/**
 * CommencementCorrected: one card back (the recorded commencement card; its rank is its code's
 * first character, T = ten), one card out (the corrected one): totals unchanged, ranks move. Rare:
 * one UPDATE now (it writes the shoe's held row first, and the row is read again at its next use).
 */
function correctCommencement(tx: ProjectionTx, shoeId: string, e: LedgerEvent<'CommencementCorrected'>): Promise<void> {
  const f = tx.fn('add_counts');
  const rank = rankOf(e.data.card);
  return updateSql(tx, shoeId, e, {
    cards_out_by_rank: [`${f}(${f}(cards_out_by_rank, jsonb_build_object(left(commencement_card, 1), -1)), jsonb_build_object($::text, 1))`, rank],
    cards_remaining_by_rank: [`${f}(${f}(cards_remaining_by_rank, jsonb_build_object(left(commencement_card, 1), 1)), jsonb_build_object($::text, -1))`, rank],
    status: [`CASE WHEN status IN ('OPEN','READY') THEN 'COMMENCING' ELSE status END`],
    commencement_card: ['$', e.data.card],
    commencement_burn_count: ['$', e.data.burnCount],
    commencement_burns_done: ['0'],
    commencement_event_id: ['$', e.eventId],
    commencement_corrections: ['commencement_corrections + 1'],
  });
}

/** ResultCorrected: the round's recorded cards go back, the corrected ones out (net, under `dealt`). */
function correctedCards(e: LedgerEvent<'ResultCorrected'>): CardMove {
  const d = e.data;
  const back = moveCards('dealt', [...d.previousOutcome.player, ...d.previousOutcome.banker]);
  const out = moveCards('dealt', d.cards);
  return { use: 'dealt', count: out.count - back.count, unseen: 0, byRank: sumCounts(out.byRank, negate(back.byRank)) };
}

function rankOf(code: string): string {
  try {
    return parseCard(code).rank;
  } catch (err) {
    if (err instanceof RulesError) throw new ProjectionError('PROJECTION.MALFORMED_EVENT', `bad card ${JSON.stringify(code)}: ${err.message}`, { card: code });
    throw err;
  }
}

function moveCards(use: CardUse, cards: readonly (string | null)[]): CardMove {
  const byRank: Record<string, number> = {};
  let unseen = 0;
  for (const c of cards) {
    if (c === null) unseen++;
    else {
      const r = rankOf(c);
      byRank[r] = (byRank[r] ?? 0) + 1;
    }
  }
  return { use, count: cards.length, unseen, byRank };
}

function negate(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, -v]));
}

function sumCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  // zeros are kept on purpose: the set of ranks in cards_out_by_rank must not depend on how
  // events were grouped into transactions (a rebuild must hash the same)
  return out;
}

/** column → [SQL expression with `$` placeholders, ...values]. Expressions see the row before the update. */
type Sets = Record<string, [string, ...unknown[]]>;

/** A shoe's card movements in one transaction (commutative: sums), written once at commit. */
interface CardTotals {
  out: number;
  unseen: number;
  byUse: Record<CardUse, number>;
  byRank: Record<string, number>;
  firstEventId: string;
}

/**
 * Applies an event to the shoe's row, in memory (`ProjectionTx.row` / `update`: the row is read once
 * per transaction and written once at its end, not UPDATEd per event; docs/architecture.md §7): the
 * card movement (if any) is added to the transaction's per-shoe totals (nothing reads card counts
 * while applying, and card events are the most frequent ones after bets), the other columns are
 * computed by `change` from the row before the event (as an UPDATE's SET expressions would see it).
 * @throws ProjectionError `PROJECTION.INCONSISTENT_EVENT` when the shoe has no row (no ShoeOpened)
 */
async function fold(tx: ProjectionTx, shoeId: string, e: LedgerEvent, move: CardMove | null, change: ((before: ShoeRow) => Record<string, unknown>) | null): Promise<void> {
  if (move) addCards(tx, shoeId, e, move);
  if (!change) return;
  const row = await tx.row(SHOE_STATE_TABLE, 'shoe_id', shoeId);
  if (!row) throw neverOpened(e.type, e.eventId, shoeId);
  tx.update(row, change(row.values as unknown as ShoeRow));
}

function addCards(tx: ProjectionTx, shoeId: string, e: LedgerEvent, move: CardMove): void {
  const t = tx.commitState<CardTotals>(
    `shoe-cards:${shoeId}`,
    () => ({ out: 0, unseen: 0, byUse: { dealt: 0, burned: 0, unneeded: 0, exposed: 0, dropped: 0 }, byRank: {}, firstEventId: e.eventId }),
    (totals) => writeCardTotals(tx, shoeId, totals),
  );
  t.out += move.count;
  t.unseen += move.unseen;
  t.byUse[move.use] += move.count;
  for (const [r, n] of Object.entries(move.byRank)) t.byRank[r] = (t.byRank[r] ?? 0) + n;
}

/** An UPDATE of the shoe's row now, with SQL expressions (they see the row before the update). */
async function updateSql(tx: ProjectionTx, shoeId: string, e: LedgerEvent, sets: Sets): Promise<void> {
  const params: unknown[] = [shoeId];
  const clauses = Object.entries(sets).map(([col, [expr, ...values]]) => {
    let i = 0;
    return `${col} = ${expr.replace(/\$/g, () => `$${params.push(values[i++])}`)}`;
  });
  const rows = await tx.query(`UPDATE ${tx.t(SHOE_STATE_TABLE)} SET ${clauses.join(', ')} WHERE shoe_id = $1 RETURNING 1`, params);
  if (rows.length === 0) throw neverOpened(e.type, e.eventId, shoeId);
}

function neverOpened(type: string, eventId: string, shoeId: string): ProjectionError {
  return new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `${type} for shoe ${shoeId}, which was never opened`, { eventId, shoeId });
}

async function writeCardTotals(tx: ProjectionTx, shoeId: string, t: CardTotals): Promise<void> {
  const f = tx.fn('add_counts');
  const byRank = t.byRank; // zeros kept: see sumCounts
  const rows = await tx.query(
    `UPDATE ${tx.t(SHOE_STATE_TABLE)} SET cards_out = cards_out + $2, cards_remaining = cards_remaining - $2, cards_unseen = cards_unseen + $3,
       cards_dealt = cards_dealt + $4, cards_burned = cards_burned + $5, cards_unneeded = cards_unneeded + $6,
       cards_exposed = cards_exposed + $7, cards_dropped = cards_dropped + $8,
       cards_out_by_rank = ${f}(cards_out_by_rank, $9::jsonb), cards_remaining_by_rank = ${f}(cards_remaining_by_rank, $10::jsonb)
     WHERE shoe_id = $1 RETURNING 1`,
    [shoeId, t.out, t.unseen, t.byUse.dealt, t.byUse.burned, t.byUse.unneeded, t.byUse.exposed, t.byUse.dropped, JSON.stringify(byRank), JSON.stringify(negate(byRank))],
  );
  if (rows.length === 0) throw neverOpened('card movement', t.firstEventId, shoeId);
}

async function openShoe(e: LedgerEvent<'ShoeOpened'>, tx: ProjectionTx): Promise<void> {
  const d: LedgerEventMap['ShoeOpened'] = e.data;
  if (shoeIdOf(e) !== d.shoeId) {
    throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `ShoeOpened for shoe ${d.shoeId} on stream ${e.streamId}`, { eventId: e.eventId });
  }
  if (!Number.isInteger(d.decks) || d.decks < 1) throw new ProjectionError('PROJECTION.MALFORMED_EVENT', `decks must be a positive integer, got ${d.decks}`, { eventId: e.eventId });
  const perRank = Object.fromEntries(RANKS.map((r) => [r, d.decks * 4]));
  await tx.query(
    `INSERT INTO ${tx.t(SHOE_STATE_TABLE)} (shoe_id, stream_id, table_id, variant, decks, virtual_table, paytable_ref, currency,
       opening_dealer_id, dealer_id, status, cards_remaining, cards_out_by_rank, cards_remaining_by_rank, opened_at,
       stream_version, last_event_id, last_global_position)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$9,'OPEN',$10,'{}'::jsonb,$11::jsonb,$12::timestamptz,$13,$14,$15)`,
    [d.shoeId, e.streamId, d.tableId, d.variant, d.decks, d.virtualTable, d.paytableRef, d.currency, d.dealerId, d.decks * 52, JSON.stringify(perRank), e.occurredAt, e.streamVersion, e.eventId, e.globalPosition],
  );
}
