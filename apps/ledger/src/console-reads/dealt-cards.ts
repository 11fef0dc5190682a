import { nextPosition, parseCard, type Card, type Position } from '@ledger/rules';

/** A card of a round with its place in the dealing order and on the tableau. */
export interface DealtCard {
  /** 0-based index in dealing order. */
  readonly index: number;
  /** P1 B1 P2 B2 P3 B3 (docs/domain-rules.md §2); null for a card the tableau does not place (never for a recorded round). */
  readonly position: Position | null;
  /** The card code, e.g. `9S`. */
  readonly card: string;
}

/**
 * The cards of a round (as `hand_outcomes.cards` holds them: codes in dealing order) with the
 * tableau position each was dealt to, derived from the cards before it by the third-card rules
 * ({@link nextPosition}), so the same rule that accepted the deal names its positions.
 */
export function dealtCards(cards: readonly string[] | null | undefined): DealtCard[] {
  const parsed: Card[] = [];
  let placeable = true;
  return (cards ?? []).map((code, index) => {
    let position: Position | null = null;
    if (placeable) {
      try {
        position = nextPosition(parsed);
        parsed.push(parseCard(code));
      } catch {
        placeable = false;
        position = null;
      }
    }
    return { index, position, card: code };
  });
}
