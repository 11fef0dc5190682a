import type { BetCode, Card, Position } from '@ledger/rules';
import type { Evidence, TableSettings } from '@ledger/events';

/**
 * Commands of the shoe stream: imperative names, plain data (docs/architecture.md §3). They come
 * from the HTTP edge after class-validator checked their shape; `decide` checks them against the
 * rules. Amounts are minor units as `bigint`; cards are {@link CardInput}s. Section signs (§) are
 * those of docs/domain-rules.md.
 */

/**
 * A card named by a command: the canonical {@link Card} of `@ledger/rules` (what the HTTP write
 * side passes: it parses a request's card once, at the edge), or its text in card notation
 * (`9S`, `TH`, `10H`), which `decide` parses (pure callers: specs, the table-log checks).
 */
export type CardInput = Card | string;

/** Management attribution for voids and corrections (§6). */
export interface DecisionInput {
  /** Why, 3..500 characters (trimmed). */
  readonly reason: string;
  /** Acting pit manager; not the dealer concerned. */
  readonly actingManagerId: string;
  /** Second, approving pit manager; differs from the acting one and is not the dealer concerned. */
  readonly approverId: string;
  /** The four-eyes decision that carries this out (docs/domain-rules.md §6), recorded on the compensating event. */
  readonly decisionId?: string;
  /** Video evidence of the decision's grounds (docs/reports.md §7), recorded on the compensating event when given. */
  readonly evidence?: Evidence;
}

/** One wager of a {@link ShoeCommand} `PlaceBets` batch. */
export interface BetInput {
  /** Unique in the shoe. */
  readonly betId: string;
  readonly accountId: string;
  /** A bet code of the table's variant (`PLAYER`, `TIGER_PAIR`, …). */
  readonly betCode: string;
  /** Minor units; 1..2^53−1 and within table limits. */
  readonly stake: bigint;
  /** ISO 4217; must be the table's currency. */
  readonly currency: string;
}

/**
 * Every command `decide` accepts. Per command, the events it produces and the refusals it can
 * raise are documented on `decide` (decide/index.ts) and on the function of its area
 * (decide/*.ts).
 */
export type ShoeCommand =
  /** Opens the stream's shoe with a snapshot of the table's settings. */
  | { readonly type: 'OpenShoe'; readonly shoeId: string; readonly tableId: string; readonly dealerId: string; readonly settings: TableSettings }
  /** §5.1: the first card of the shoe is opened; it says how many cards to burn. */
  | { readonly type: 'DrawCommencementCard'; readonly card: CardInput }
  /** §5.1: a commencement mistake corrected before the first card of the shoe is dealt. */
  | { readonly type: 'CorrectCommencement'; readonly card: CardInput; readonly reason: string; readonly decision?: DecisionInput }
  /** §5.1: one commencement burn; `card` null when burned face down. */
  | { readonly type: 'BurnCard'; readonly card: CardInput | null }
  | { readonly type: 'OpenRound'; readonly roundId: string }
  /** All-or-nothing batch: one refused bet refuses the batch. */
  | { readonly type: 'PlaceBets'; readonly roundId: string; readonly bets: readonly BetInput[] }
  | { readonly type: 'CloseBetting'; readonly roundId: string }
  | { readonly type: 'DealCard'; readonly roundId: string; readonly position: Position; readonly card: CardInput }
  /**
   * §5.3: a card seen that should not have been. The phase is the shoe's (bets open, dealing,
   * commencement, between rounds) unless `phase: 'SHUFFLE'` says it happened while shuffling.
   */
  | { readonly type: 'ExposeCard'; readonly card: CardInput; readonly phase?: 'SHUFFLE' }
  /**
   * §5.5: a card dropped out of camera view. The phase is the shoe's (dealing, commencement,
   * burning, between rounds = scooping) unless `phase` says shuffling or scooping.
   */
  | {
      readonly type: 'DropCard';
      readonly card: CardInput | null;
      readonly exposedBeforeLeavingView: boolean;
      readonly phase?: 'SHUFFLE' | 'SCOOPING';
    }
  /** §5.3: a card drawn that the tableau did not call for (during dealing or right after the result). */
  | { readonly type: 'DrawUnneededCard'; readonly roundId: string; readonly card: CardInput }
  /** §5.2: the cut card ("blue card") came out. */
  | { readonly type: 'DrawCutCard' }
  /** Management (§6): void a round (any phase, also after the shoe closed). */
  | { readonly type: 'VoidRound'; readonly roundId: string; readonly decision: DecisionInput }
  /** Management, §5.4 and §6: replace a resulted round's cards; every bet is settled again. */
  | { readonly type: 'CorrectResult'; readonly roundId: string; readonly cards: readonly CardInput[]; readonly decision: DecisionInput }
  /** Management (§6): void the shoe and every round of it not yet voided. */
  | { readonly type: 'VoidShoe'; readonly decision: DecisionInput }
  | { readonly type: 'CloseShoe' }
  | { readonly type: 'ChangeDealer'; readonly dealerId: string };

/** The `type` literal of every command. */
export type ShoeCommandType = ShoeCommand['type'];

/** The command of one type, e.g. `ShoeCommandOf<'DealCard'>`. */
export type ShoeCommandOf<T extends ShoeCommandType> = Extract<ShoeCommand, { type: T }>;

/** What `decide` needs from outside, passed explicitly (no clock or randomness inside). */
export interface DecideContext {
  /** Returns a fresh unique event id (UUID in production, a counter in tests). */
  readonly newId: () => string;
}

export type { BetCode, Position };
