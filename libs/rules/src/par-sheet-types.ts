import type { BetCode, Variant } from './variants';

/**
 * The shapes of a PAR sheet (docs/domain-rules.md §3): rows per bet code, outcomes, house edge.
 * Computed by `computeParSheet` (par-sheet.ts).
 */
export interface ParSheetRow {
  /** Paytable row key (`WIN`, `TIE`, `WIN_TOTAL_6`, `SUITED_PAIR`…, see `ROW_KEYS`) or `LOSE`. */
  readonly row: string;
  /** The paytable's value for the row, `"X:Y"` or `"push"`; `"lose"` for the `LOSE` row. */
  readonly payoff: string;
  /** Probability that a round settles the bet on this row. */
  readonly probability: number;
  /**
   * The exact numerator of `probability` over {@link ParSheet.combinations}, as a decimal
   * integer string: ordered deals of six physical cards (a 4- or 5-card round counted once per
   * way the unused cards could follow), the convention of published combinatorial tables.
   */
  readonly combinations: string;
  /** probability × net result per unit staked (odds on a win, 0 on a push, −1 on a loss). */
  readonly contribution: number;
}

/** The PAR-sheet entry of one bet. */
export interface ParSheetBet {
  readonly bet: BetCode;
  /**
   * −expectedValue: the house's expected gain per unit initially staked (pushes included in the
   * stake base, the conventional published figure, e.g. Banker 0.95:1 in 8 decks = 0.010579).
   */
  readonly houseEdge: number;
  /** Player's expected net result per unit staked = Σ rows' contributions. */
  readonly expectedValue: number;
  /** The paytable's rows for the bet, most specific first (as `ROW_KEYS`), then `LOSE`. */
  readonly rows: readonly ParSheetRow[];
  /** Probability the bet wins (sum of its `"X:Y"` rows). */
  readonly probabilityWin: number;
  /** Probability the bet pushes (sum of its `"push"` rows). */
  readonly probabilityPush: number;
  /** Probability the bet loses (the `LOSE` row). */
  readonly probabilityLose: number;
}

/** Probabilities of the round's winner (§2). They sum to 1. */
export interface ParSheetOutcomes {
  readonly bankerWins: number;
  readonly playerWins: number;
  readonly tie: number;
}

/** The PAR sheet of a paytable for an N-deck shoe. See the module comment for the method. */
export interface ParSheet {
  readonly variant: Variant;
  /** Decks in the shoe, 1..16. */
  readonly decks: number;
  /** The paytable's `id@version`. */
  readonly paytableRef: string;
  /** Common denominator of every probability, (52N)(52N−1)…(52N−5), as a decimal integer string (8 decks: 4998398275503360). */
  readonly combinations: string;
  readonly outcomes: ParSheetOutcomes;
  /** Every bet of the variant, in `BET_CODES` order. */
  readonly bets: readonly ParSheetBet[];
}

// ---------------------------------------------------------------------------------------------
