import { ProjectionError, type ProjectionTx } from '@ledger/projections';
import { HAND_OUTCOMES_TABLE } from './tables';

/**
 * Facts about a round fixed when it opened, which every bet of the round is attributed to
 * (reconciliation by table, shoe, dealer, gaming day and currency: docs/domain-rules.md §4).
 * They are the `hand_outcomes` projection's row of the round: a projection that needs them
 * declares `reads: [ROUND_CONTEXT_TABLE]`, which the applier checks at start.
 */
export interface RoundContext {
  readonly roundId: string;
  readonly shoeId: string;
  readonly tableId: string;
  /** Dealer of the shoe at RoundOpened (reconciliation attribution). */
  readonly dealerId: string;
  /** `YYYY-MM-DD`, see gaming-day.ts. */
  readonly gamingDay: string;
  /** The shoe's currency (TableSettings.currency). */
  readonly currency: string;
  /** The shoe's paytable `id@version` (its settings snapshot; the round's RoundResulted names the same). */
  readonly paytableRef: string;
}

/** The table round contexts are read from (owned by the `hand_outcomes` projection). */
export const ROUND_CONTEXT_TABLE = HAND_OUTCOMES_TABLE;

const KIND = 'round-context';

/**
 * Records the context of a round the running transaction opens (the `hand_outcomes` projection,
 * at RoundOpened: the same values as its row), so {@link roundContext} does not read it back.
 */
export function rememberRoundContext(tx: ProjectionTx, ctx: RoundContext): void {
  tx.knowFact(KIND, ctx.roundId, ctx);
}

/**
 * The context of a round, read once from `hand_outcomes` and then cached (this transaction, then
 * the applier's cache after COMMIT): the values never change once the round is opened.
 * @throws ProjectionError `PROJECTION.INCONSISTENT_EVENT` when the round was never opened
 */
export function roundContext(tx: ProjectionTx, roundId: string): Promise<RoundContext> {
  return tx.fact(KIND, roundId, async () => {
    const rows = await tx.query<{ shoe_id: string; table_id: string; dealer_id: string; gaming_day: string; currency: string; paytable_ref: string }>(
      `SELECT shoe_id, table_id, dealer_id, gaming_day::text AS gaming_day, currency, paytable_ref FROM ${tx.t(ROUND_CONTEXT_TABLE)} WHERE round_id = $1`,
      [roundId],
    );
    if (rows.length === 0) throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `round ${roundId} was never opened`, { roundId });
    const r = rows[0];
    return { roundId, shoeId: r.shoe_id, tableId: r.table_id, dealerId: r.dealer_id, gamingDay: r.gaming_day, currency: r.currency, paytableRef: r.paytable_ref };
  });
}
