import { newShoeCount, remainingTotal, RulesError, takeCard, type Card, type ShoeCount } from '@ledger/rules';
import { DomainError } from './errors';

/**
 * Card accounting of one shoe (docs/domain-rules.md §1, §5.1–§5.5): every card that leaves the shoe,
 * whether dealt, burned, drawn unneeded, exposed or dropped and not reused, counts against the
 * shoe's N × 52 cards, and no card may appear more than N times.
 *
 * Cards whose face nobody saw (a burn face down, a dropped card nobody saw) count against the
 * total only. The two checks together are exactly "some assignment of faces to the unseen cards
 * fits the shoe": per code, known copies ≤ N; in all, known + unseen ≤ N × 52.
 *
 * `dealt + burned + unneeded + exposed + dropped + remaining = decks × 52` always holds.
 */
export interface CardAccounting {
  /** Known cards out of the shoe, by code (the rules library's per-code N-copies check). */
  readonly known: ShoeCount;
  /** Cards out of the shoe with an unknown face: face-down burns, unseen dropped cards. */
  readonly unseen: number;
  /** Cards in the hands of rounds (voided rounds included: those cards left the shoe too). */
  readonly dealt: number;
  /** The commencement card plus every burn (§5.1). */
  readonly burned: number;
  /** Cards drawn that the tableau did not call for (§5.3). */
  readonly unneeded: number;
  /** Cards exposed out of the shoe while bets were open, while dealing or between rounds (§5.3). */
  readonly exposed: number;
  /** Cards dropped out of view during dealing and not reused (§5.5). */
  readonly dropped: number;
}

/** The category a card leaving the shoe is counted under. */
export type CardUse = 'dealt' | 'burned' | 'unneeded' | 'exposed' | 'dropped';

/**
 * A full shoe of `decks` decks.
 * @throws DomainError `SHOE.INVALID_DECK_COUNT` unless 1 ≤ decks ≤ 16
 */
export function newAccounting(decks: number): CardAccounting {
  let known: ShoeCount;
  try {
    known = newShoeCount(decks);
  } catch (e) {
    if (e instanceof RulesError) throw DomainError.fromRules(e);
    throw e;
  }
  return { known, unseen: 0, dealt: 0, burned: 0, unneeded: 0, exposed: 0, dropped: 0 };
}

/** Cards still in the shoe: N × 52 minus every card out, seen or not. */
export function cardsRemaining(acc: CardAccounting): number {
  return remainingTotal(acc.known) - acc.unseen;
}

function assertNotEmpty(acc: CardAccounting, card: string | null): void {
  if (cardsRemaining(acc) <= 0) {
    throw new DomainError('SHOE.CARD_EXCEEDS_DECKS', `the ${acc.known.decks}-deck shoe has no card left`, {
      card,
      decks: acc.known.decks,
      remaining: 0,
    });
  }
}

/**
 * Records that a card left the shoe under `use`. `card` null = face not seen.
 * @throws DomainError `SHOE.CARD_EXCEEDS_DECKS` when the card would be copy N+1 of its code, or
 *   the shoe has no card left
 */
export function takeOut(acc: CardAccounting, card: Card | null, use: CardUse): CardAccounting {
  assertNotEmpty(acc, card ? card.code : null);
  if (card === null) return { ...acc, unseen: acc.unseen + 1, [use]: acc[use] + 1 };
  let known: ShoeCount;
  try {
    known = takeCard(acc.known, card);
  } catch (e) {
    if (e instanceof RulesError) throw DomainError.fromRules(e);
    throw e;
  }
  return { ...acc, known, [use]: acc[use] + 1 };
}

/**
 * Puts a known card back into the accounting (a corrected record: the card recorded never left).
 * @throws DomainError `EVENT.INCONSISTENT` if the card was not recorded as out
 */
export function putBack(acc: CardAccounting, card: Card, use: CardUse): CardAccounting {
  const used = acc.known.used[card.code] ?? 0;
  if (used <= 0 || acc[use] <= 0) {
    throw new DomainError('EVENT.INCONSISTENT', `cannot return ${card.code}: it is not recorded as out of the shoe`, { card: card.code });
  }
  const known: ShoeCount = {
    decks: acc.known.decks,
    used: { ...acc.known.used, [card.code]: used - 1 },
    usedTotal: acc.known.usedTotal - 1,
  };
  return { ...acc, known, [use]: acc[use] - 1 };
}
