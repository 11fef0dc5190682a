import type { BetCode, Position, RoundOutcome, Variant, Winner } from '@ledger/rules';
import type { EventEnvelope, Evidence, ManagementDecision } from './envelope';
import type { TableClockSkew } from './clock-skew';
import type { DecisionApprovedData, DecisionExpiredData, DecisionRejectedData, DecisionRequestedData } from './decisions';
import type { SignificantEventAcknowledgedData, SignificantEventRaisedData } from './significant';
import type { ConfigurationAttestedData } from './configuration';

/**
 * The event catalogue: every event of the shoe and round life cycle (docs/domain-rules.md §5,
 * docs/architecture.md §9). Past-tense `type` literals; `data` shapes below; amounts are minor
 * units as decimal strings (JSON has no bigint); cards are canonical codes (`TH`, never `10H`).
 * Section signs (§) in this file without a document name are those of docs/domain-rules.md.
 *
 * Current schema version of every type: {@link SCHEMA_VERSIONS}. Older versions are lifted by the
 * upcasters in `upcasters.ts` when read.
 */

/** Snapshot of the table's configuration taken when the shoe opened, so replay never depends on current config. */
export interface TableSettings {
  readonly variant: Variant;
  readonly decks: number;
  readonly virtualTable: boolean;
  /** `id@version` of the paytable every settlement of this shoe names. */
  readonly paytableRef: string;
  /** Classic only: pair wagers need a main wager by the same account in the same round first (§3.1). */
  readonly pairBetsRequireMainBet: boolean;
  /** ISO 4217 currency of stakes at this table. */
  readonly currency: string;
  /** Limits per bet code, minor units as decimal strings: min per stake, max per account per code per round (§4). */
  readonly limits: Readonly<Record<string, { readonly min: string; readonly max: string }>>;
}

export interface ShoeOpenedData extends TableSettings {
  readonly shoeId: string;
  readonly tableId: string;
  readonly dealerId: string;
}
/** §5.1: the first card is opened and that many cards burned (A=1, 2–9 face, T/J/Q/K=10). */
export interface CommencementCardDrawnData {
  readonly card: string;
  /** Burns the card calls for. */
  readonly burnCount: number;
  /** Video evidence of the fact (docs/reports.md §7); absent when the device gave none. */
  readonly evidence?: Evidence;
}
/** §5.1: a commencement mistake corrected before the first hand is dealt. */
export interface CommencementCorrectedData {
  readonly card: string;
  readonly burnCount: number;
  readonly reason: string;
  /** eventId of the CommencementCardDrawn (or earlier correction) this replaces. */
  readonly compensates: string;
  /**
   * The approved four-eyes decision behind the correction (docs/domain-rules.md §6); absent on
   * corrections recorded before the four-eyes flow.
   */
  readonly decision?: ManagementDecision | null;
}
/** A card burned; `card` null when burned face down. `phase` says when. */
export interface CardBurnedData {
  readonly card: string | null;
  readonly phase: 'COMMENCEMENT' | 'BETWEEN_ROUNDS';
  /** 1-based count of this burn within the commencement. */
  readonly burnIndex: number;
  /** Video evidence of the fact (docs/reports.md §7); absent when the device gave none. */
  readonly evidence?: Evidence;
}
export interface RoundOpenedData {
  readonly roundId: string;
  /** Rounds opened in this shoe so far, this one included (voided ones counted, §3.2 windows). */
  readonly handNumber: number;
}
export interface BetPlacedData {
  readonly betId: string;
  readonly roundId: string;
  readonly accountId: string;
  readonly betCode: BetCode;
  /** Minor units, decimal string. */
  readonly stake: string;
  readonly currency: string;
}
export interface BettingClosedData {
  readonly roundId: string;
  readonly betCount: number;
  /** Sum of stakes, minor units. */
  readonly totalStake: string;
}
export interface CardDealtData {
  readonly roundId: string;
  readonly position: Position;
  readonly card: string;
  /** Video evidence of the fact (docs/reports.md §7); absent when the device gave none. */
  readonly evidence?: Evidence;
}
/**
 * §5.3: a card exposed. While bets are open it voids the hand (a RoundVoided follows);
 * during commencement it changes nothing (recorded only).
 */
export interface CardExposedData {
  readonly roundId: string | null;
  readonly card: string;
  readonly phase: 'BETTING_OPEN' | 'DEALING' | 'COMMENCEMENT' | 'SHUFFLE' | 'BETWEEN_ROUNDS';
  /** Video evidence of the fact (docs/reports.md §7); absent when the device gave none. */
  readonly evidence?: Evidence;
}
/** §5.5: a card dropped out of camera view. */
export interface CardDroppedData {
  readonly roundId: string | null;
  /** The card if it was seen, else null. */
  readonly card: string | null;
  readonly phase: 'SHUFFLE' | 'COMMENCEMENT' | 'BURNING' | 'SCOOPING' | 'DEALING';
  /** Dealing only: the card was exposed before it left view (then it is reused, §5.5). */
  readonly exposedBeforeLeavingView: boolean;
  /** Video evidence of the fact (docs/reports.md §7); absent when the device gave none. */
  readonly evidence?: Evidence;
}
/** §5.3: a card drawn and exposed that the tableau did not call for; it left the shoe but not into a hand. */
export interface UnneededCardDrawnData {
  readonly roundId: string;
  readonly card: string;
  /** Video evidence of the fact (docs/reports.md §7); absent when the device gave none. */
  readonly evidence?: Evidence;
}
/** §5.2: the cut card came out. */
export interface CutCardDrawnData {
  readonly roundId: string | null;
  /** DURING_DEALING: this round is the last. BEFORE_DEALING / BETWEEN_ROUNDS: no further round commences. */
  readonly timing: 'DURING_DEALING' | 'BEFORE_DEALING' | 'BETWEEN_ROUNDS';
  /** Video evidence of the fact (docs/reports.md §7); absent when the device gave none. */
  readonly evidence?: Evidence;
}
/** The outcome the ledger computed from the cards (never taken from the client). */
export interface RoundOutcomeData {
  /** Player's cards in the order received (2 or 3), canonical codes. */
  readonly player: readonly string[];
  /** Banker's cards in the order received (2 or 3), canonical codes. */
  readonly banker: readonly string[];
  /** Hand totals 0..9 (§1). */
  readonly playerTotal: number;
  readonly bankerTotal: number;
  readonly winner: Winner;
  /** Either side had a natural (two-card 8 or 9, §2). */
  readonly natural: boolean;
  /** The side's first two cards are of the same rank (§3.1). */
  readonly playerPair: boolean;
  readonly bankerPair: boolean;
}

/**
 * The event data of an outcome the rules computed (`resultRound`, `evaluateRound` of
 * `@ledger/rules`): cards as canonical codes, and only the fields a {@link RoundOutcomeData}
 * holds (`cardsConsumed`, `playerNatural`, `bankerNatural` are left out). The one mapping from
 * a rules outcome to what RoundResulted and ResultCorrected record.
 */
export function roundOutcomeData(o: RoundOutcome): RoundOutcomeData {
  return {
    player: o.player.map((c) => c.code),
    banker: o.banker.map((c) => c.code),
    playerTotal: o.playerTotal,
    bankerTotal: o.bankerTotal,
    winner: o.winner,
    natural: o.natural,
    playerPair: o.playerPair,
    bankerPair: o.bankerPair,
  };
}
export interface RoundResultedData {
  readonly roundId: string;
  readonly handNumber: number;
  readonly outcome: RoundOutcomeData;
  readonly paytableRef: string;
}
/** The settlement of one bet, amounts in minor units as decimal strings (§4). */
export interface BetSettlementData {
  readonly betId: string;
  readonly roundId: string;
  readonly accountId: string;
  readonly betCode: BetCode;
  readonly currency: string;
  readonly result: 'WIN' | 'LOSE' | 'PUSH';
  readonly stake: string;
  readonly winnings: string;
  /** Returned to the player: stake + winnings on a win, stake on a push, 0 on a loss. */
  readonly payout: string;
  /** payout − stake. */
  readonly net: string;
  /** Fraction of a minor unit dropped by rounding down, `"num/den"` (`"1/2"`), `"0"` when none. */
  readonly dropped: string;
  /** The paytable `id@version` used. */
  readonly paytableRef: string;
  /** 1 for the first settlement; +1 for each resettlement after a correction. */
  readonly revision: number;
}
export type BetSettledData = BetSettlementData;
export interface BetResettledData extends BetSettlementData {
  /** eventId of the settlement (BetSettled or BetResettled) this replaces. */
  readonly compensates: string;
}
/** Why a round was voided. MANAGEMENT rounds carry a {@link ManagementDecision}. */
export type VoidCause = 'MANAGEMENT' | 'EXPOSED_CARD' | 'DROPPED_CARD' | 'CUT_CARD' | 'SHOE_VOIDED';
export interface RoundVoidedData {
  readonly roundId: string;
  readonly cause: VoidCause;
  /** Present when cause is MANAGEMENT. */
  readonly decision: ManagementDecision | null;
  /** eventId of the table fact that caused an automatic void (exposed/dropped/cut card), else null. */
  readonly causedBy: string | null;
}
/** A bet's stake returned because its round (or shoe) was voided (§6: a void returns every stake). */
export interface BetRefundedData {
  readonly betId: string;
  readonly roundId: string;
  readonly accountId: string;
  readonly betCode: BetCode;
  readonly currency: string;
  readonly stake: string;
  /** eventId of the RoundVoided or ShoeVoided. */
  readonly compensates: string;
  /** The settlement revision this refund ends (0 if the bet was never settled). */
  readonly revision: number;
}
/** §5.4: management edited a hand's result; the corrected cards give the new outcome. */
export interface ResultCorrectedData {
  readonly roundId: string;
  /** The corrected cards in dealing order (P1 B1 P2 B2 [P3] [B3]). */
  readonly cards: readonly string[];
  readonly previousOutcome: RoundOutcomeData;
  readonly outcome: RoundOutcomeData;
  readonly decision: ManagementDecision;
  readonly paytableRef: string;
}
export interface ShoeVoidedData {
  readonly decision: ManagementDecision;
  /** Rounds voided with the shoe (open ones and those not yet voided). */
  readonly roundIds: readonly string[];
}
export interface ShoeClosedData {
  readonly roundsPlayed: number;
  readonly cardsRemaining: number;
}
export interface DealerChangedData {
  readonly previousDealerId: string;
  readonly dealerId: string;
}

/**
 * The stream of a gaming day's closes (docs/reports.md §2): `gaming-day-<YYYY-MM-DD>`. Its events are
 * ledger-wide, not a table's: their `tableId` (and so their Kafka key) is {@link LEDGER_WIDE_TABLE_ID}.
 */
export const GAMING_DAY_STREAM_PREFIX = 'gaming-day-';

/**
 * The `tableId` of ledger-wide events (a gaming day's close covers a set of tables): `*`, which no
 * table id can be (ids match `ID_PATTERN`, patterns.ts). It is also their Kafka key.
 */
export const LEDGER_WIDE_TABLE_ID = '*';

/**
 * The stream id of gaming day `day` (`YYYY-MM-DD`): `gaming-day-<day>` (docs/reports.md §2). Where
 * several ledgers share one database (each with its own events topic: the test suites), each ledger's
 * day has its own stream `gaming-day-<day>:<scope>`, `scope` being that ledger's events topic.
 * @param scope null (or absent): the database's one ledger
 */
export function gamingDayStreamId(day: string, scope: string | null = null): string {
  return scope === null ? `${GAMING_DAY_STREAM_PREFIX}${day}` : `${GAMING_DAY_STREAM_PREFIX}${day}:${scope}`;
}

/** Whether `streamId` is a stream of gaming day `day`, of any ledger scope (see {@link gamingDayStreamId}). */
export function isGamingDayStreamOf(streamId: string, day: string): boolean {
  const base = gamingDayStreamId(day);
  return streamId === base || streamId.startsWith(`${base}:`);
}

/**
 * How long an early-close request ({@link GamingDayCloseRequestedData}) can wait for its approval,
 * counted from the request event's `recordedAt` (ledger clock): 1 hour. A request's `expiresAt` is
 * never later; a close approving it after either bound is not genuine (docs/reports.md §2).
 */
export const EARLY_CLOSE_TTL_MS = 60 * 60_000;

/**
 * An early close of a gaming day (one that has not ended), as carried by its {@link GamingDayClosedData}:
 * asked for by one pit manager with a reason, approved by a second (four eyes, docs/reports.md §2).
 */
export interface EarlyCloseApproval {
  /** Id of the {@link GamingDayCloseRequestedData} this close carries out. */
  readonly requestId: string;
  /** Why the day is closed before its end, 3..500 characters. */
  readonly reason: string;
  readonly requestedBy: string;
  /** The approving pit manager; differs from the requester. */
  readonly approvedBy: string;
}

/**
 * A pit manager asked to close a gaming day before it ended (docs/reports.md §2): nothing is closed
 * until a second pit manager approves (then {@link GamingDayClosedData} follows in the same stream)
 * before `expiresAt`. The requester is the envelope's actor.
 */
export interface GamingDayCloseRequestedData {
  /** Ledger-wide id of the request (a UUID). */
  readonly requestId: string;
  /** `YYYY-MM-DD`. */
  readonly gamingDay: string;
  /** The table set asked for, sorted; null: every table not closed when it is approved. */
  readonly tableIds: readonly string[] | null;
  /** Why, 3..500 characters. */
  readonly reason: string;
  readonly requestedBy: string;
  /** ISO-8601 ledger time after which the request can no longer be approved. */
  readonly expiresAt: string;
}

/**
 * A gaming day closed for a table set (docs/reports.md §2): the frozen report of the day, computed
 * from the verified events up to `throughPosition`, whose canonical bytes (RFC 8785) have SHA-256
 * `reportSha256` and Ed25519 signature `signature` under key `keyId`. The bytes themselves are kept
 * by the API (`gaming_day_closes`) and can be computed again from the events at that position; a
 * close is genuine only when its bytes hash to `reportSha256`, the signature verifies over them, and
 * the bytes name this day, table set and position (an event or a row that fails any of these is a
 * forgery: the API refuses it and `npm run -s verify` reports it).
 */
export interface GamingDayClosedData {
  /** `YYYY-MM-DD`. */
  readonly gamingDay: string;
  /** The table set, sorted, non-empty. */
  readonly tableIds: readonly string[];
  /** Every event at or below it is covered by the report; none above. Decimal string. */
  readonly throughPosition: string;
  /** Lower-case hex SHA-256 of the report's canonical bytes. */
  readonly reportSha256: string;
  /** Ed25519 signature of the report's canonical bytes, base64. */
  readonly signature: string;
  /** `ed25519:<hex>` id of the signing key. */
  readonly keyId: string;
  /** A pit manager's close (`MANAGER`) or the API's sweeper's (`AUTOMATIC`). */
  readonly trigger: 'MANAGER' | 'AUTOMATIC';
  /** Present only on an early close: the request and its approval. */
  readonly early?: EarlyCloseApproval;
  /**
   * The largest device clock skew of the day per table of the set, as signed in the report (layout 2
   * on; absent from closes of layout 1): docs/architecture.md §9, "Time the ledger vouches for".
   */
  readonly clockSkew?: readonly TableClockSkew[];
}

/**
 * An API's attestation of its clocks (docs/architecture.md §9, "Time the ledger vouches for"; 13 Miss.
 * Code R. 8-4.5): at start and then every `CLOCK_ATTESTATION_INTERVAL_MS` (a day by default), the API
 * states what the machine's time synchronisation reports and reads its own clock and the database's
 * against each other. Appended to the current gaming day's stream (ledger-wide, like its closes):
 * hash-chained, anchored, on Kafka. Actor: `system` `clock-attestor`.
 */
export interface ClockAttestedData {
  /** The API's host name (`os.hostname()`). */
  readonly host: string;
  /** `START` (the API started) or `PERIODIC` (its timer). */
  readonly reason: 'START' | 'PERIODIC';
  /**
   * What the machine's time synchronisation reports, as read (`timedatectl show`, `chronyc tracking`,
   * `/run/systemd/timesync/synchronized`), or `unsynchronised: no time-sync service found`; ≤ 500 characters.
   */
  readonly source: string;
  /** True only when the service read says the clock is synchronised. */
  readonly synchronised: boolean;
  /** The API's clock (ISO-8601, ms), read just before the database's. */
  readonly ledgerClock: string;
  /** PostgreSQL's `clock_timestamp()` (ISO-8601, ms). */
  readonly databaseClock: string;
  /** `databaseClock − ledgerClock`, whole ms, signed (includes one round trip to the database). */
  readonly offsetMs: number;
}

/** type literal → data shape. The single source of the catalogue. */
export interface LedgerEventMap {
  ShoeOpened: ShoeOpenedData;
  CommencementCardDrawn: CommencementCardDrawnData;
  CommencementCorrected: CommencementCorrectedData;
  CardBurned: CardBurnedData;
  RoundOpened: RoundOpenedData;
  BetPlaced: BetPlacedData;
  BettingClosed: BettingClosedData;
  CardDealt: CardDealtData;
  CardExposed: CardExposedData;
  CardDropped: CardDroppedData;
  UnneededCardDrawn: UnneededCardDrawnData;
  CutCardDrawn: CutCardDrawnData;
  RoundResulted: RoundResultedData;
  BetSettled: BetSettledData;
  RoundVoided: RoundVoidedData;
  BetRefunded: BetRefundedData;
  ResultCorrected: ResultCorrectedData;
  BetResettled: BetResettledData;
  ShoeVoided: ShoeVoidedData;
  ShoeClosed: ShoeClosedData;
  DealerChanged: DealerChangedData;
  DecisionRequested: DecisionRequestedData;
  DecisionApproved: DecisionApprovedData;
  DecisionRejected: DecisionRejectedData;
  DecisionExpired: DecisionExpiredData;
  GamingDayCloseRequested: GamingDayCloseRequestedData;
  GamingDayClosed: GamingDayClosedData;
  ClockAttested: ClockAttestedData;
  ConfigurationAttested: ConfigurationAttestedData;
  SignificantEventRaised: SignificantEventRaisedData;
  SignificantEventAcknowledged: SignificantEventAcknowledgedData;
}

export type LedgerEventType = keyof LedgerEventMap;

/** Current schema version of each event type. Bump with an upcaster, never edit old events. */
export const SCHEMA_VERSIONS: Readonly<Record<LedgerEventType, number>> = {
  ShoeOpened: 1,
  CommencementCardDrawn: 1,
  CommencementCorrected: 1,
  CardBurned: 1,
  RoundOpened: 1,
  BetPlaced: 1,
  BettingClosed: 1,
  CardDealt: 1,
  CardExposed: 1,
  CardDropped: 1,
  UnneededCardDrawn: 1,
  CutCardDrawn: 1,
  RoundResulted: 1,
  BetSettled: 1,
  RoundVoided: 1,
  BetRefunded: 1,
  ResultCorrected: 1,
  BetResettled: 1,
  ShoeVoided: 1,
  ShoeClosed: 1,
  DealerChanged: 1,
  DecisionRequested: 1,
  DecisionApproved: 1,
  DecisionRejected: 1,
  DecisionExpired: 1,
  GamingDayCloseRequested: 1,
  GamingDayClosed: 1,
  ClockAttested: 1,
  ConfigurationAttested: 1,
  SignificantEventRaised: 1,
  SignificantEventAcknowledged: 1,
};

/**
 * The types of a gaming day's stream (`gaming-day-<day>`, docs/reports.md §2): its close requests and
 * closes, and the clock and configuration attestations made during the day; every other type is a shoe stream's.
 */
export const GAMING_DAY_EVENT_TYPES = ['GamingDayCloseRequested', 'GamingDayClosed', 'ClockAttested', 'ConfigurationAttested'] as const;
/** A type of a gaming day's stream. */
export type GamingDayEventType = (typeof GAMING_DAY_EVENT_TYPES)[number];
/** The types of a significant event's stream (`significant-<id>`, {@link SIGNIFICANT_STREAM_PREFIX}). */
export const SIGNIFICANT_EVENT_TYPES = ['SignificantEventRaised', 'SignificantEventAcknowledged'] as const;
/** A type of a significant event's stream. */
export type SignificantEventType = (typeof SIGNIFICANT_EVENT_TYPES)[number];
/** A type of a shoe's stream (`shoe-<shoeId>`): every type but the gaming day's and the significant events'. */
export type ShoeEventType = Exclude<LedgerEventType, GamingDayEventType | SignificantEventType>;

/** Every event type literal. */
export const EVENT_TYPES = Object.keys(SCHEMA_VERSIONS) as LedgerEventType[];

/**
 * An event before the store wraps it in its envelope: what `decide` returns. `eventId` is
 * assigned by the caller's id generator (passed to `decide` explicitly) so compensating events
 * can name the events they compensate.
 */
export type NewEvent<T extends LedgerEventType = LedgerEventType> = {
  [K in T]: { readonly eventId: string; readonly type: K; readonly data: LedgerEventMap[K] };
}[T];

/** A stored ledger event of any type, discriminated by `type`. */
export type LedgerEvent<T extends LedgerEventType = LedgerEventType> = {
  [K in T]: EventEnvelope<K, LedgerEventMap[K]>;
}[T];

/** Events that only the management roles may cause (compensating events). */
export const COMPENSATING_TYPES: readonly LedgerEventType[] = ['CommencementCorrected', 'RoundVoided', 'BetRefunded', 'ResultCorrected', 'BetResettled', 'ShoeVoided'];

/**
 * The table facts that may carry {@link Evidence} (docs/reports.md §7): what a table device reports
 * of the cards. The API records a write's evidence on the table fact it causes, never on the
 * events the ledger derives from it (RoundResulted, BetSettled, an automatic RoundVoided: those
 * name the fact by `causedBy` or follow it in the same append).
 */
export const EVIDENCE_FACT_TYPES: readonly LedgerEventType[] = ['CommencementCardDrawn', 'CardBurned', 'CardDealt', 'CardExposed', 'CardDropped', 'UnneededCardDrawn', 'CutCardDrawn'];
