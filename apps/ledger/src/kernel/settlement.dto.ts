import { Amount, Day, Enum, Int, NAmount, NEnum, NStr, NTime, Str, Time } from './openapi-props';
import { EVENT_ROLES, SETTLEMENT_STATUSES, BET_RESULTS } from './response-enums';

/**
 * The schemas of a bet's settlement, shared by the settlement reads (`settlements/`) and the recall
 * (`recall/`) (docs/openapi.json; the console's types are generated from it). Classes only describe;
 * the services answer plain objects of these shapes. Amounts: strings of integer minor units. Times:
 * ISO-8601 UTC.
 */

/**
 * One step of a bet's settlement history. An entry a management decision caused names its two
 * managers: `actorId` the acting one (who requested it), `approverId` the one who approved it.
 */
export class SettlementRevision {
  @Int() seq!: number;
  @Enum(['SETTLED', 'RESETTLED', 'REFUNDED']) kind!: string;
  @Int() revision!: number;
  @NEnum(BET_RESULTS) result!: string | null;
  @Amount() stake!: string;
  @NAmount() winnings!: string | null;
  @NAmount('returned to the player') payout!: string | null;
  @NAmount('payout − stake') net!: string | null;
  @NStr('fraction of a minor unit dropped by rounding, e.g. 1/2') dropped!: string | null;
  @NStr() paytableRef!: string | null;
  @NStr() compensates!: string | null;
  @Str() eventId!: string;
  @Str('who acted: the acting (requesting) pit manager of the decision behind the entry, else the event’s actor') actorId!: string;
  @Enum(EVENT_ROLES) actorRole!: string;
  @NStr() reason!: string | null;
  @NStr('the pit manager who approved the decision behind the entry, null when none') approverId!: string | null;
  @Time() occurredAt!: string;
  @Str('ISO 4217 currency of the bet (of every amount of the entry)') currency!: string;
  @NAmount('REFUNDED: the stake the refund returns to the wallet; null on a settlement') refundedStake!: string | null;
  @Str('the wallet transaction of this entry: <betId>:win:<revision> (settlement, resettlement) or <betId>:refund:<revision> (docs/reports.md §4)') transactionId!: string;
  @Amount('what the wallet books for it: the payout change of a (re)settlement, stake − payout in force of a refund; may be negative') walletAmount!: string;
}

/** A bet's settlement in force (from `bet_settlements`). */
export class Settlement {
  @Str() betId!: string;
  @Str() shoeId!: string;
  @Str() roundId!: string;
  @Str() tableId!: string;
  @Str() dealerId!: string;
  @Day() gamingDay!: string;
  @Str() accountId!: string;
  @Str() betCode!: string;
  @Str() currency!: string;
  @Amount() stake!: string;
  @Enum(SETTLEMENT_STATUSES) status!: string;
  @NEnum(BET_RESULTS) result!: string | null;
  @NAmount() winnings!: string | null;
  @NAmount() payout!: string | null;
  @NAmount() net!: string | null;
  @NStr() dropped!: string | null;
  @NStr() paytableRef!: string | null;
  @Int() revision!: number;
  @NAmount() refundedStake!: string | null;
  @Time() placedAt!: string;
  @NTime() settledAt!: string | null;
  @NTime() refundedAt!: string | null;
  @Str('the wallet transaction of the stake debited: <betId>:bet (docs/reports.md §4)') betTransactionId!: string;
}
