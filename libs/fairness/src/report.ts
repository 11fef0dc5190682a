import { parseCards, resultRound, RoundOutcome, Variant } from '@ledger/rules';
import { countRound, emptyCounts, ScopeCounts } from './counts';
import { ShoeComposition } from './expected';
import { Confidence, FairnessScope, fairnessVerdict, FairnessVerdict, falseAlarmRatePerTableDay, perTestAlpha, StatisticReport, testScope } from './monitor';

/**
 * The fairness report of a table's gaming day (docs/fairness.md §4), as `GET
 * /statistics/fairness` serves it: the statistics of the scope asked for and, for a whole table
 * day, of each shoe and each dealer in it, with the verdict of the decision rule.
 */

/** A resulted round as recorded: its shoe, its dealer and the cards of each side in the order received. */
export interface RecordedRound {
  readonly shoeId: string;
  readonly dealerId: string;
  /** Player's cards, `['9S', 'KD']` or three. */
  readonly playerCards: readonly string[];
  /** Banker's cards, two or three. */
  readonly bankerCards: readonly string[];
}

/**
 * The outcome of a recorded round, resulted again by the engine from its cards in dealing order
 * (P1 B1 P2 B2, then P3 and B3 as held).
 * @throws RulesError `CARD.MALFORMED`, `TABLEAU.VIOLATION`, `TABLEAU.INSUFFICIENT_CARDS` for cards no round could hold
 */
export function outcomeOfRecordedRound(round: Pick<RecordedRound, 'playerCards' | 'bankerCards'>): RoundOutcome {
  const p = parseCards(round.playerCards.join(' '));
  const b = parseCards(round.bankerCards.join(' '));
  return resultRound([p[0], b[0], p[1], b[1], ...p.slice(2), ...b.slice(2)]);
}

/** One scope's statistics in a report. */
export interface ScopeReport {
  readonly scope: FairnessScope;
  readonly rounds: number;
  readonly statistics: readonly StatisticReport[];
}

/** A fairness report: the scopes, the verdict over them, and the rule's figures. */
export interface FairnessReport {
  readonly variant: Variant;
  readonly decks: number;
  readonly confidence: { readonly numerator: string; readonly denominator: string };
  /** The stated false-alarm rate per table per gaming day (1 − confidence). */
  readonly falseAlarmRatePerTableDay: number;
  /** The level each test is judged at. */
  readonly alpha: number;
  readonly scopes: readonly ScopeReport[];
  readonly verdict: FairnessVerdict;
}

/** What {@link fairnessReport} needs. `selection` is the scope the rounds were selected by. */
export interface FairnessReportInput {
  readonly variant: Variant;
  readonly decks: number;
  readonly composition?: ShoeComposition;
  readonly confidence: Confidence;
  readonly selection: FairnessScope;
  readonly rounds: readonly RecordedRound[];
}

/**
 * Counts and tests the rounds: the selection as one scope and, when the selection is the whole
 * table day, each shoe and each dealer in it (in the order first seen).
 * @throws RulesError `SHOE.INVALID_DECK_COUNT`, or a card error of {@link outcomeOfRecordedRound}
 */
export function fairnessReport(input: FairnessReportInput): FairnessReport {
  const whole = emptyCounts(input.variant);
  const byShoe = new Map<string, ScopeCounts>();
  const byDealer = new Map<string, ScopeCounts>();
  for (const r of input.rounds) {
    const o = outcomeOfRecordedRound(r);
    countRound(whole, input.variant, o);
    if (input.selection.kind !== 'table') continue;
    if (!byShoe.has(r.shoeId)) byShoe.set(r.shoeId, emptyCounts(input.variant));
    if (!byDealer.has(r.dealerId)) byDealer.set(r.dealerId, emptyCounts(input.variant));
    countRound(byShoe.get(r.shoeId)!, input.variant, o);
    countRound(byDealer.get(r.dealerId)!, input.variant, o);
  }
  const scoped: { scope: FairnessScope; counts: ScopeCounts }[] = [
    { scope: input.selection, counts: whole },
    ...[...byShoe].map(([shoeId, counts]) => ({ scope: { kind: 'shoe', shoeId } as const, counts })),
    ...[...byDealer].map(([dealerId, counts]) => ({ scope: { kind: 'dealer', dealerId } as const, counts })),
  ];
  const base = { variant: input.variant, decks: input.decks, composition: input.composition, confidence: input.confidence };
  return {
    variant: input.variant,
    decks: input.decks,
    confidence: { numerator: input.confidence.numerator.toString(), denominator: input.confidence.denominator.toString() },
    falseAlarmRatePerTableDay: falseAlarmRatePerTableDay(input.confidence),
    alpha: perTestAlpha(input.confidence, input.variant),
    scopes: scoped.map(({ scope, counts }) => ({ scope, rounds: counts.rounds, statistics: testScope({ ...base, counts }) })),
    verdict: fairnessVerdict({ ...base, scopes: scoped }),
  };
}
