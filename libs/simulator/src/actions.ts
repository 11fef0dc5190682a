import type { ApiBet, ApiCommand, ApiCommandFields } from '@ledger/client';
import type { BetCode } from '@ledger/rules';

/**
 * The simulator's actions: commands of the API (`@ledger/client` API_COMMANDS, the one definition
 * of the vocabulary) as a generated shoe holds them. The shoe is the script's (`ShoeScript.shoeId`;
 * `openShoe` names it too), so it is not on the action; everything else is the command's fields.
 * A management action (`voidRound`, `correctResult`) is the request of the runner's acting pit
 * manager; the runner has a second pit manager approve it (docs/domain-rules.md §6).
 */

/** A simulated bet; `stake` in minor units as a decimal string. */
export interface SimBet extends ApiBet {
  betCode: BetCode;
}

/** The commands a generated shoe uses. */
export type SimActionKind = 'openShoe' | 'commencement' | 'burn' | 'openRound' | 'bets' | 'closeBetting' | 'deal' | 'unneeded' | 'expose' | 'drop' | 'cutCard' | 'voidRound' | 'correctResult' | 'closeShoe';

/** The mutable copy of a command's fields (scripts are built step by step). */
type Fields<K extends SimActionKind> = { -readonly [F in keyof ApiCommandFields[K]]: ApiCommandFields[K][F] };

/**
 * One action of a generated shoe: a command without its shoe. `bets` carry
 * {@link SimBet}s (a bet code of the variant); `correctResult` its cards as a plain list.
 */
export type TableAction =
  | ({ kind: 'openShoe'; shoeId: string } & Fields<'openShoe'>)
  | { kind: 'bets'; roundId: string; bets: SimBet[] }
  | { kind: 'correctResult'; roundId: string; cards: string[]; reason: string }
  | { [K in Exclude<SimActionKind, 'openShoe' | 'bets' | 'correctResult'>]: { kind: K } & Fields<K> }[Exclude<SimActionKind, 'openShoe' | 'bets' | 'correctResult'>];

/**
 * The API command of an action of the shoe `shoeId`: the action's fields and the shoe. A
 * management decision's command names no approver: the approval is a second request, by another
 * pit manager with their own token (`approvalRequestOf` of `@ledger/client`).
 */
export function commandOfAction(a: TableAction, shoeId: string): ApiCommand {
  const { kind, ...fields } = a;
  return { kind, shoeId: a.kind === 'openShoe' ? a.shoeId : shoeId, ...fields } as ApiCommand;
}
