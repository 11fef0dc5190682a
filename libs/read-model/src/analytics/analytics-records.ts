import { createHash } from 'node:crypto';
import type { LedgerEvent, VoidCause } from '@ledger/events';
import { parseFraction, parseMinor, shoeIdOf } from '@ledger/projections';
import type { RoundContext } from '../outcomes/round-context';
import { BeadCell, BigRoadCell, computeRoads, DerivedRoad, RoadRound, RoadWinner } from '../roads/roads';

/**
 * The records of the analytics topics (docs/architecture.md §7), as PURE functions of a ledger event and
 * the read-model state right after it: no I/O, no clock, no randomness. The same event in the
 * same state always gives byte-identical records with the same CloudEvents id, so a republish or
 * a re-application after a rolled-back transaction can only ever produce exact duplicates.
 *
 * Which events produce records:
 *
 * | event                                   | records (in this order)      |
 * |-----------------------------------------|------------------------------|
 * | RoundResulted, ResultCorrected, RoundVoided | `round-outcome`, then `roads` |
 * | BetSettled, BetResettled, BetRefunded   | `settlement`                 |
 *
 * The state is read through {@link AnalyticsStateReader}: the projector reads it from the
 * projection tables inside its transaction (`analytics-outbox.ts`), tests fold it in memory
 * (`memory-state.ts`).
 *
 * Kafka layout of a record (documented in `docs/asyncapi/asyncapi.yaml`): key = table id, value =
 * the payload below as JSON (CloudEvents binary mode: the value is the event's `data`), headers =
 * `ce_specversion`, `ce_id`, `ce_type`, `ce_source`, `ce_subject`, `ce_time`, `ce_dataschema`,
 * `content-type`, `schema_version`.
 */

/** Version of every analytics payload schema today (header `schema_version`, field `schemaVersion`). */
export const ANALYTICS_SCHEMA_VERSION = 1;

/** The three kinds of analytics record, one per topic. */
export type AnalyticsRecordKind = 'round-outcome' | 'settlement' | 'roads';

/** Every kind, in topic-declaration order. */
export const ANALYTICS_RECORD_KINDS: readonly AnalyticsRecordKind[] = ['round-outcome', 'settlement', 'roads'];

/**
 * Base of the JSON Schemas' `$id`s: a URN, `urn:baccarat-ledger:schemas:<file>`, independent of
 * where the API is deployed (an id is written into every analytics record, kept for years; a
 * host name would be stale after a move). The schema of id `SCHEMA_ID_BASE + <file>` is served at
 * `GET /schemas/<file>` of the API ({@link schemaServedPath}) and lives in `docs/asyncapi/schemas/`
 * (docs/architecture.md §6).
 */
export const SCHEMA_ID_BASE = 'urn:baccarat-ledger:schemas:';

/** The API path prefix the JSON Schemas are served under (`GET /schemas/<file>`). */
export const SCHEMA_SERVED_PREFIX = '/schemas/';

/**
 * The API path (`/schemas/<file>`) a schema `$id` (`urn:baccarat-ledger:schemas:<file>`) is served
 * at, or null for an id that is not one of the ledger's (docs/architecture.md §6).
 * @param id a `$id` or `ce_dataschema` value
 */
export function schemaServedPath(id: string): string | null {
  if (!id.startsWith(SCHEMA_ID_BASE)) return null;
  const file = id.slice(SCHEMA_ID_BASE.length);
  return /^[a-z0-9-]+\.v[0-9]+\.schema\.json$/.test(file) ? `${SCHEMA_SERVED_PREFIX}${file}` : null;
}

/** CloudEvents `type` and `dataschema` (the JSON Schema's `$id`) of each kind. */
export const ANALYTICS_RECORD_TYPES: Readonly<Record<AnalyticsRecordKind, { readonly ceType: string; readonly dataSchema: string; readonly schemaFile: string }>> = {
  'round-outcome': {
    ceType: `baccarat.analytics.RoundOutcome.v${ANALYTICS_SCHEMA_VERSION}`,
    dataSchema: `${SCHEMA_ID_BASE}round-outcome.v1.schema.json`,
    schemaFile: 'round-outcome.v1.schema.json',
  },
  settlement: {
    ceType: `baccarat.analytics.Settlement.v${ANALYTICS_SCHEMA_VERSION}`,
    dataSchema: `${SCHEMA_ID_BASE}settlement.v1.schema.json`,
    schemaFile: 'settlement.v1.schema.json',
  },
  roads: {
    ceType: `baccarat.analytics.Roads.v${ANALYTICS_SCHEMA_VERSION}`,
    dataSchema: `${SCHEMA_ID_BASE}roads.v1.schema.json`,
    schemaFile: 'roads.v1.schema.json',
  },
};

/**
 * Namespace of the name-based (v5) UUIDs used as `ce_id`: `ce_id = UUIDv5(namespace,
 * "<kind>:<source eventId>")`. Never change it: consumers de-duplicate on `ce_id` across years.
 */
export const ANALYTICS_ID_NAMESPACE = '3d0f6b3e-8a51-4c1e-9b7a-5f2c9e4d7a10';

/**
 * A name-based UUID, version 5 (RFC 9562 §5.5: SHA-1 of the namespace's 16 bytes + the name's
 * UTF-8 bytes, version and variant bits set).
 */
export function uuidV5(namespace: string, name: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new Error(`namespace must be a UUID, got ${JSON.stringify(namespace)}`);
  const h = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** The CloudEvents id of the record of `kind` derived from the ledger event `sourceEventId`. */
export function analyticsRecordId(kind: AnalyticsRecordKind, sourceEventId: string): string {
  return uuidV5(ANALYTICS_ID_NAMESPACE, `${kind}:${sourceEventId}`);
}

/** Fields every analytics payload carries: where it came from in the ledger. */
export interface AnalyticsProvenance {
  /** {@link ANALYTICS_SCHEMA_VERSION}; equals the `schema_version` header. */
  readonly schemaVersion: number;
  /** The record's id; equals the `ce_id` header (kept in the value for sinks that drop headers). */
  readonly recordId: string;
  readonly tableId: string;
  readonly shoeId: string;
  /** The ledger event this record derives from (its `eventId`, `type`, `globalPosition`, `occurredAt`). */
  readonly sourceEventId: string;
  readonly sourceEventType: string;
  /** Decimal string (bigint). */
  readonly globalPosition: string;
  /** When it happened at the table (ISO-8601); equals the `ce_time` header. */
  readonly occurredAt: string;
}

/** Status of a round as the analytics topics report it (never OPEN: open rounds produce no record). */
export type AnalyticsRoundStatus = 'RESULTED' | 'CORRECTED' | 'VOIDED';

/**
 * Value of `baccarat.analytics.round-outcomes.v1`: a round after it was resulted, corrected or
 * voided. For VOIDED the outcome fields are null (a voided round has no outcome that counts); its
 * cards are still the cards dealt.
 */
export interface RoundOutcomePayload extends AnalyticsProvenance {
  readonly roundId: string;
  /** The round's number in its shoe (RoundOpened.handNumber; voided rounds count). */
  readonly handNumber: number;
  /** `classic`, `tiger`, `fabulous4`… (the shoe's TableSettings.variant). */
  readonly variant: string;
  /** Dealer of the shoe at RoundOpened (attribution of the round's money). */
  readonly dealerId: string;
  /** Dealer who dealt the round (differs when the dealer changed while bets were open). */
  readonly dealingDealerId: string;
  /** Gaming day of the round, `YYYY-MM-DD` (RoundOpened's occurredAt, casino time zone and cut-off). */
  readonly gamingDay: string;
  readonly status: AnalyticsRoundStatus;
  /** 1 for the first result (or a void before any result), +1 per correction or void. */
  readonly revision: number;
  /** Cards in dealing order (P1 B1 P2 B2 [P3] [B3]); the corrected cards after a correction. */
  readonly cards: readonly string[];
  readonly playerCards: readonly string[] | null;
  readonly bankerCards: readonly string[] | null;
  readonly playerTotal: number | null;
  readonly bankerTotal: number | null;
  readonly winner: RoadWinner | null;
  readonly natural: boolean | null;
  readonly playerPair: boolean | null;
  readonly bankerPair: boolean | null;
  /** The paytable `id@version` the round was settled with. */
  readonly paytableRef: string;
  /** VOIDED only: why. */
  readonly voidCause: VoidCause | null;
  /** CORRECTED and management VOIDED: eventId of the result this revision replaces. */
  readonly compensates: string | null;
}

/** Status of a bet's settlement as the analytics topics report it. */
export type AnalyticsSettlementStatus = 'SETTLED' | 'RESETTLED' | 'REFUNDED';

/**
 * Value of `baccarat.analytics.settlements.v1`: one settlement, resettlement or refund of a bet.
 * Amounts are integer minor units as decimal strings (JSON numbers cannot carry every bigint).
 * For REFUNDED: result, winnings, payout, net and dropped are null and `refundedStake` is the stake
 * returned; the bet leaves turnover.
 */
export interface SettlementPayload extends AnalyticsProvenance {
  readonly betId: string;
  readonly accountId: string;
  readonly roundId: string;
  /** Dealer of the round at RoundOpened. */
  readonly dealerId: string;
  readonly gamingDay: string;
  readonly betCode: string;
  /** ISO 4217. */
  readonly currency: string;
  readonly status: AnalyticsSettlementStatus;
  /** Settlement revision: 1 first settlement, +1 per resettlement; a refund keeps the revision it ends (0 if never settled). */
  readonly revision: number;
  readonly result: 'WIN' | 'LOSE' | 'PUSH' | null;
  readonly stake: string;
  readonly winnings: string | null;
  /** Returned to the player: stake + winnings on a win, stake on a push, 0 on a loss. */
  readonly payout: string | null;
  /** payout − stake (negative on a loss). */
  readonly net: string | null;
  /** Fraction of a minor unit dropped by rounding, `"num/den"` or `"0"`. */
  readonly dropped: string | null;
  readonly refundedStake: string | null;
  readonly paytableRef: string;
  /** RESETTLED: the settlement replaced; REFUNDED: the RoundVoided / ShoeVoided that caused it. */
  readonly compensates: string | null;
}

/**
 * Value of `baccarat.analytics.roads.v1`: every road of a shoe after one of its rounds was
 * resulted, corrected or voided (the whole shoe, recomputed: a correction or void rewrites them).
 * Shapes are those of `libs/read-model/src/roads/roads.ts`.
 */
export interface RoadsPayload extends AnalyticsProvenance {
  /** The round whose change this is. */
  readonly roundId: string;
  readonly change: AnalyticsRoundStatus;
  /** Rounds on the roads: resulted or corrected, never voided. */
  readonly roundsCounted: number;
  readonly beadPlate: readonly BeadCell[];
  readonly bigRoad: { readonly leadingTies: number; readonly columns: readonly (readonly BigRoadCell[])[] };
  readonly bigEyeBoy: DerivedRoad;
  readonly smallRoad: DerivedRoad;
  readonly cockroachPig: DerivedRoad;
}

/** Payload type of each kind. */
export interface AnalyticsPayloads {
  'round-outcome': RoundOutcomePayload;
  settlement: SettlementPayload;
  roads: RoadsPayload;
}

/** One record ready for the outbox and Kafka. */
export interface AnalyticsRecord {
  readonly kind: AnalyticsRecordKind;
  /** Kafka key: the table id. */
  readonly key: string;
  /** CloudEvents binary-mode headers + `schema_version` (all strings). */
  readonly headers: Readonly<Record<string, string>>;
  /** Kafka value: the payload as JSON. */
  readonly value: string;
  /** = `headers.ce_id`. */
  readonly ceId: string;
  readonly sourceEventId: string;
  /** Global position of the source event; with {@link ordinal}, the publishing order. */
  readonly globalPosition: string;
  /** 0, 1… among the records of one source event. */
  readonly ordinal: number;
}

/** A round as the projection tables hold it right after the event was applied. */
export interface RoundSnapshot {
  readonly roundId: string;
  readonly shoeId: string;
  readonly tableId: string;
  readonly variant: string;
  readonly handNumber: number;
  readonly dealerId: string;
  readonly dealingDealerId: string;
  readonly gamingDay: string;
  readonly paytableRef: string;
  readonly status: 'OPEN' | AnalyticsRoundStatus;
  readonly revision: number;
  readonly cards: readonly string[];
  readonly playerCards: readonly string[] | null;
  readonly bankerCards: readonly string[] | null;
  readonly playerTotal: number | null;
  readonly bankerTotal: number | null;
  readonly winner: RoadWinner | null;
  readonly natural: boolean | null;
  readonly playerPair: boolean | null;
  readonly bankerPair: boolean | null;
  readonly voidCause: VoidCause | null;
}

/** What the record builders need to know beyond the event: the read model right after it. */
export interface AnalyticsStateReader {
  /** The round after the event was applied. */
  roundAfter(roundId: string): Promise<RoundSnapshot>;
  /** The shoe's rounds that count on the roads (RESULTED or CORRECTED), after the event. */
  countedRounds(shoeId: string): Promise<RoadRound[]>;
  /** Attribution of a round fixed at RoundOpened (dealer, gaming day, paytable). */
  roundContext(roundId: string): Promise<RoundContext>;
}

/** Event types that produce analytics records. */
export const ANALYTICS_SOURCE_TYPES: ReadonlySet<string> = new Set(['RoundResulted', 'ResultCorrected', 'RoundVoided', 'BetSettled', 'BetResettled', 'BetRefunded']);

function provenance(e: LedgerEvent, kind: AnalyticsRecordKind): AnalyticsProvenance {
  return {
    schemaVersion: ANALYTICS_SCHEMA_VERSION,
    recordId: analyticsRecordId(kind, e.eventId),
    tableId: e.tableId,
    shoeId: shoeIdOf(e),
    sourceEventId: e.eventId,
    sourceEventType: e.type,
    globalPosition: e.globalPosition,
    occurredAt: e.occurredAt,
  };
}

/**
 * The round-outcome payload of a RoundResulted / ResultCorrected / RoundVoided, from the round as
 * it stands after the event.
 */
export function buildRoundOutcome(e: LedgerEvent<'RoundResulted' | 'ResultCorrected' | 'RoundVoided'>, round: RoundSnapshot): RoundOutcomePayload {
  if (round.status === 'OPEN') throw new Error(`round ${round.roundId} is still OPEN after ${e.type} ${e.eventId}`);
  const voided = round.status === 'VOIDED';
  let compensates: string | null = null;
  if (e.type === 'ResultCorrected') compensates = e.data.decision.compensates;
  else if (e.type === 'RoundVoided') compensates = e.data.decision?.compensates ?? null;
  return {
    ...provenance(e, 'round-outcome'),
    roundId: round.roundId,
    handNumber: round.handNumber,
    variant: round.variant,
    dealerId: round.dealerId,
    dealingDealerId: round.dealingDealerId,
    gamingDay: round.gamingDay,
    status: round.status,
    revision: round.revision,
    cards: [...round.cards],
    playerCards: voided || !round.playerCards ? null : [...round.playerCards],
    bankerCards: voided || !round.bankerCards ? null : [...round.bankerCards],
    playerTotal: voided ? null : round.playerTotal,
    bankerTotal: voided ? null : round.bankerTotal,
    winner: voided ? null : round.winner,
    natural: voided ? null : round.natural,
    playerPair: voided ? null : round.playerPair,
    bankerPair: voided ? null : round.bankerPair,
    paytableRef: round.paytableRef,
    voidCause: voided ? round.voidCause : null,
    compensates,
  };
}

const minor = (s: string, what: string) => parseMinor(s, what).toString();

/** What a settlement record is attributed to: the round's dealer at RoundOpened, gaming day, paytable. */
export type SettlementAttribution = Pick<RoundContext, 'dealerId' | 'gamingDay' | 'paytableRef'>;

/**
 * The settlement payload of a BetSettled / BetResettled / BetRefunded. `ctx.paytableRef` is used
 * for refunds only (a refund names no paytable; the round's is reported).
 */
export function buildSettlement(e: LedgerEvent<'BetSettled' | 'BetResettled' | 'BetRefunded'>, ctx: SettlementAttribution): SettlementPayload {
  const common = {
    ...provenance(e, 'settlement'),
    betId: e.data.betId,
    accountId: e.data.accountId,
    roundId: e.data.roundId,
    dealerId: ctx.dealerId,
    gamingDay: ctx.gamingDay,
    betCode: e.data.betCode,
    currency: e.data.currency,
  };
  if (e.type === 'BetRefunded') {
    const stake = minor(e.data.stake, 'stake');
    return {
      ...common,
      status: 'REFUNDED',
      revision: e.data.revision,
      result: null,
      stake,
      winnings: null,
      payout: null,
      net: null,
      dropped: null,
      refundedStake: stake,
      paytableRef: ctx.paytableRef,
      compensates: e.data.compensates,
    };
  }
  const d = e.data;
  parseFraction(d.dropped);
  return {
    ...common,
    status: e.type === 'BetSettled' ? 'SETTLED' : 'RESETTLED',
    revision: d.revision,
    result: d.result,
    stake: minor(d.stake, 'stake'),
    winnings: minor(d.winnings, 'winnings'),
    payout: minor(d.payout, 'payout'),
    net: minor(d.net, 'net'),
    dropped: d.dropped,
    refundedStake: null,
    paytableRef: d.paytableRef,
    compensates: e.type === 'BetResettled' ? e.data.compensates : null,
  };
}

/** The roads payload after a round of the shoe changed (`rounds`: the shoe's counted rounds). */
export function buildRoads(e: LedgerEvent<'RoundResulted' | 'ResultCorrected' | 'RoundVoided'>, change: AnalyticsRoundStatus, rounds: readonly RoadRound[]): RoadsPayload {
  const roads = computeRoads(rounds);
  return {
    ...provenance(e, 'roads'),
    roundId: e.data.roundId,
    change,
    roundsCounted: rounds.length,
    beadPlate: roads.beadPlate,
    bigRoad: { leadingTies: roads.bigRoad.leadingTies, columns: roads.bigRoad.columns },
    bigEyeBoy: roads.bigEyeBoy,
    smallRoad: roads.smallRoad,
    cockroachPig: roads.cockroachPig,
  };
}

/** CloudEvents `subject` of a payload: its path under the table (`ce_source`). */
export function analyticsSubject(kind: AnalyticsRecordKind, p: AnalyticsPayloads[AnalyticsRecordKind]): string {
  switch (kind) {
    case 'round-outcome':
      return `shoes/${p.shoeId}/rounds/${(p as RoundOutcomePayload).roundId}`;
    case 'settlement':
      return `shoes/${p.shoeId}/rounds/${(p as SettlementPayload).roundId}/bets/${(p as SettlementPayload).betId}`;
    case 'roads':
      return `shoes/${p.shoeId}/roads`;
  }
}

/**
 * Wraps a payload as a Kafka record: key = table id, value = JSON, CloudEvents 1.0 binary-mode
 * headers (`ce_source` = `/tables/<tableId>`, `ce_time` = the source event's occurredAt,
 * `ce_dataschema` = the JSON Schema's `$id`) and `schema_version`.
 */
export function toAnalyticsRecord<K extends AnalyticsRecordKind>(kind: K, payload: AnalyticsPayloads[K], ordinal: number): AnalyticsRecord {
  const t = ANALYTICS_RECORD_TYPES[kind];
  return {
    kind,
    key: payload.tableId,
    headers: {
      ce_specversion: '1.0',
      ce_id: payload.recordId,
      ce_type: t.ceType,
      ce_source: `/tables/${payload.tableId}`,
      ce_subject: analyticsSubject(kind, payload),
      ce_time: payload.occurredAt,
      ce_dataschema: t.dataSchema,
      'content-type': 'application/json',
      schema_version: String(payload.schemaVersion),
    },
    value: JSON.stringify(payload),
    ceId: payload.recordId,
    sourceEventId: payload.sourceEventId,
    globalPosition: payload.globalPosition,
    ordinal,
  };
}

/**
 * Every analytics record one ledger event produces (see the table in the module doc), in
 * publishing order. `state` must reflect the projections right AFTER the event.
 */
export async function analyticsRecordsFor(e: LedgerEvent, state: AnalyticsStateReader): Promise<AnalyticsRecord[]> {
  switch (e.type) {
    case 'RoundResulted':
    case 'ResultCorrected':
    case 'RoundVoided': {
      const round = await state.roundAfter(e.data.roundId);
      const outcome = buildRoundOutcome(e, round);
      const roads = buildRoads(e, outcome.status, await state.countedRounds(shoeIdOf(e)));
      return [toAnalyticsRecord('round-outcome', outcome, 0), toAnalyticsRecord('roads', roads, 1)];
    }
    case 'BetSettled':
    case 'BetResettled':
      // dealer and gaming day never change after RoundOpened: the cached context is exact
      return [toAnalyticsRecord('settlement', buildSettlement(e, await state.roundContext(e.data.roundId)), 0)];
    case 'BetRefunded':
      // the round's paytable may have been named by its result: read the round as it stands
      return [toAnalyticsRecord('settlement', buildSettlement(e, await state.roundAfter(e.data.roundId)), 0)];
    default:
      return [];
  }
}
