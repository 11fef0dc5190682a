import { POSITIONS } from '@ledger/rules';
import { EVENT_TYPES, SCHEMA_VERSIONS, type EarlyCloseApproval, type LedgerEventMap, type LedgerEventType, type RoundOutcomeData } from './catalogue';
import type { AffectedBet, DecisionProposal } from './decisions';
import { ROLES, type EventEnvelope, type Evidence, type ManagementDecision } from './envelope';
import { CAMERA_ID_PATTERN, SEGMENT_REF_PATTERN, TIMECODE_PATTERN } from './patterns';
import { ID, IDS, ID_OR_NULL, NULL, CAUSE_WINDOW, BOOL, SHA256_HEX, POSITIVE, COUNT, HAND_TOTAL, TIME, REASON, DECIMAL, MINOR, SIGNED_MINOR, DROPPED, CURRENCY, CARD, VARIANT, BET_CODE } from './schema-primitives';
import { ATTESTED_SIGNIFICANT } from './schema-primitives';

/**
 * The JSON Schema (draft-07) of the ledger event (docs/guarantees.md §10): the envelope, and the
 * `data` of every type of the catalogue, declared here next to the catalogue's interfaces and
 * typed against them, so a type added to {@link LedgerEventMap} without its schema, or a field
 * added, renamed or removed in one side only, does not compile. `scripts/gen-event-schemas.ts`
 * writes {@link ledgerEventJsonSchema} to `docs/asyncapi/schemas/ledger-event.v1.schema.json`
 * (and a unit spec fails while the committed file differs). Enumerations come from the code that
 * owns them (bet codes, variants, positions, roles, event types, evidence patterns).
 */

/** A JSON Schema node. */
export type JsonSchema = Readonly<Record<string, unknown>>;

type RequiredKey<D> = { [K in keyof D]-?: undefined extends D[K] ? never : K }[keyof D];

/** The schema of an object of shape `D`: a property for every key of `D` and no other, only required keys in `required`. */
export interface ObjectSchema<D> {
  readonly type: 'object';
  readonly title?: string;
  readonly description?: string;
  readonly additionalProperties: false;
  readonly minProperties?: number;
  readonly required?: readonly RequiredKey<D>[];
  readonly properties: { readonly [K in keyof D]-?: JsonSchema };
}

/** Names of the shared definitions (`#/definitions/<name>`). */
export type SharedDefinition = 'ManagementDecision' | 'Evidence' | 'RoundOutcome' | 'DecisionProposal' | 'AffectedBet' | 'EarlyCloseApproval';

const ref = (name: SharedDefinition): JsonSchema => ({ $ref: `#/definitions/${name}` });

/** The definitions the data schemas share. */
export const SHARED_DEFINITIONS: {
  readonly [K in SharedDefinition]: ObjectSchema<
    { ManagementDecision: ManagementDecision; Evidence: Evidence; RoundOutcome: RoundOutcomeData; DecisionProposal: DecisionProposal; AffectedBet: AffectedBet; EarlyCloseApproval: EarlyCloseApproval }[K]
  >;
} = {
  ManagementDecision: {
    type: 'object',
    title: 'ManagementDecision',
    additionalProperties: false,
    required: ['reason', 'actingManagerId', 'approverId', 'compensates'],
    properties: {
      reason: REASON,
      actingManagerId: ID,
      approverId: ID,
      compensates: { type: 'string', minLength: 1, description: 'eventId of the event this decision compensates.' },
      decisionId: { type: 'string', minLength: 1, description: 'The four-eyes decision (DecisionRequested → DecisionApproved) this event carries out; absent on events recorded before the four-eyes flow.' },
      evidence: ref('Evidence'),
    },
  },
  Evidence: {
    type: 'object',
    title: 'Evidence',
    additionalProperties: false,
    minProperties: 1,
    description: "Where the video of a table fact or of a decision's grounds is (docs/reports.md §7): at least one field; absent from the event when none was given.",
    properties: {
      cameraId: { type: 'string', pattern: CAMERA_ID_PATTERN.source, description: 'Camera or channel id.' },
      timecode: { type: 'string', pattern: TIMECODE_PATTERN.source, description: 'SMPTE ST 12-1 timecode HH:MM:SS:FF (HH:MM:SS;FF drop frame) within the recording.' },
      segmentRef: { type: 'string', pattern: SEGMENT_REF_PATTERN.source, description: 'Stored video segment: clip id or URI, printable ASCII, no spaces.' },
    },
  },
  RoundOutcome: {
    type: 'object',
    title: 'RoundOutcome',
    additionalProperties: false,
    required: ['player', 'banker', 'playerTotal', 'bankerTotal', 'winner', 'natural', 'playerPair', 'bankerPair'],
    properties: {
      player: { type: 'array', items: CARD, minItems: 2, maxItems: 3 },
      banker: { type: 'array', items: CARD, minItems: 2, maxItems: 3 },
      playerTotal: HAND_TOTAL,
      bankerTotal: HAND_TOTAL,
      winner: { type: 'string', enum: ['PLAYER', 'BANKER', 'TIE'] },
      natural: BOOL,
      playerPair: BOOL,
      bankerPair: BOOL,
    },
  },
  DecisionProposal: {
    type: 'object',
    title: 'DecisionProposal',
    additionalProperties: false,
    required: ['kind', 'roundId', 'cards', 'card'],
    properties: {
      kind: { type: 'string', enum: ['VOID_ROUND', 'CORRECT_RESULT', 'VOID_SHOE', 'CORRECT_COMMENCEMENT'] },
      roundId: { type: ['string', 'null'] },
      cards: { oneOf: [{ type: 'array', items: { type: 'string' }, minItems: 4, maxItems: 6 }, NULL] },
      card: { type: ['string', 'null'] },
    },
  },
  AffectedBet: {
    type: 'object',
    title: 'AffectedBet',
    additionalProperties: false,
    required: ['betId', 'roundId', 'accountId', 'betCode', 'currency', 'stake', 'effect', 'payoutAfter', 'replaces'],
    properties: {
      betId: { type: 'string' },
      roundId: { type: 'string' },
      accountId: { type: 'string' },
      betCode: { type: 'string' },
      currency: { type: 'string', pattern: '^[A-Z]{3}$' },
      stake: DECIMAL,
      effect: { type: 'string', enum: ['REFUND', 'RESETTLE'] },
      payoutAfter: DECIMAL,
      replaces: { type: ['string', 'null'] },
    },
  },
  EarlyCloseApproval: {
    type: 'object',
    title: 'Early close approval',
    description: "An early close's request and its approval by a second pit manager (four eyes).",
    additionalProperties: false,
    required: ['requestId', 'reason', 'requestedBy', 'approvedBy'],
    properties: { requestId: ID, reason: REASON, requestedBy: ID, approvedBy: ID },
  },
};

/** The schema of the `data` of every event type (its current schema version, {@link SCHEMA_VERSIONS}). */
export const EVENT_DATA_SCHEMAS: { readonly [K in LedgerEventType]: ObjectSchema<LedgerEventMap[K]> } = {
  ShoeOpened: {
    type: 'object',
    description: 'A shoe opened at a table, with a snapshot of the table settings.',
    additionalProperties: false,
    required: ['shoeId', 'tableId', 'dealerId', 'variant', 'decks', 'virtualTable', 'paytableRef', 'pairBetsRequireMainBet', 'currency', 'limits'],
    properties: {
      shoeId: ID,
      tableId: ID,
      dealerId: ID,
      variant: { ...VARIANT, description: '`classic` (with Lucky Pair side bets), `tiger` (Tiger Baccarat), `fabulous4` (Fabulous 4 Baccarat).' },
      decks: POSITIVE,
      virtualTable: BOOL,
      paytableRef: ID,
      pairBetsRequireMainBet: BOOL,
      currency: CURRENCY,
      limits: {
        type: 'object',
        additionalProperties: { type: 'object', additionalProperties: false, required: ['min', 'max'], properties: { min: MINOR, max: MINOR } },
        description: 'Per bet code: min per stake, max per account per code per round.',
      },
    },
  },
  CommencementCardDrawn: { type: 'object', additionalProperties: false, required: ['card', 'burnCount'], properties: { card: CARD, burnCount: { type: 'integer', minimum: 1, maximum: 10 }, evidence: ref('Evidence') } },
  CommencementCorrected: {
    type: 'object',
    additionalProperties: false,
    required: ['card', 'burnCount', 'reason', 'compensates'],
    properties: {
      card: CARD,
      burnCount: { type: 'integer', minimum: 1, maximum: 10 },
      reason: ID,
      compensates: ID,
      decision: { oneOf: [ref('ManagementDecision'), NULL], description: 'The approved four-eyes decision behind the correction; absent on older events.' },
    },
  },
  CardBurned: {
    type: 'object',
    additionalProperties: false,
    required: ['card', 'phase', 'burnIndex'],
    properties: { card: { anyOf: [CARD, NULL], description: 'Null when burned face down.' }, phase: { type: 'string', enum: ['COMMENCEMENT', 'BETWEEN_ROUNDS'] }, burnIndex: POSITIVE, evidence: ref('Evidence') },
  },
  RoundOpened: { type: 'object', additionalProperties: false, required: ['roundId', 'handNumber'], properties: { roundId: ID, handNumber: POSITIVE } },
  BetPlaced: {
    type: 'object',
    additionalProperties: false,
    required: ['betId', 'roundId', 'accountId', 'betCode', 'stake', 'currency'],
    properties: { betId: ID, roundId: ID, accountId: ID, betCode: BET_CODE, stake: MINOR, currency: CURRENCY },
  },
  BettingClosed: { type: 'object', additionalProperties: false, required: ['roundId', 'betCount', 'totalStake'], properties: { roundId: ID, betCount: COUNT, totalStake: MINOR } },
  CardDealt: { type: 'object', additionalProperties: false, required: ['roundId', 'position', 'card'], properties: { roundId: ID, position: { type: 'string', enum: [...POSITIONS] }, card: CARD, evidence: ref('Evidence') } },
  CardExposed: {
    type: 'object',
    additionalProperties: false,
    required: ['roundId', 'card', 'phase'],
    properties: { roundId: ID_OR_NULL, card: CARD, phase: { type: 'string', enum: ['BETTING_OPEN', 'DEALING', 'COMMENCEMENT', 'SHUFFLE', 'BETWEEN_ROUNDS'] }, evidence: ref('Evidence') },
  },
  CardDropped: {
    type: 'object',
    additionalProperties: false,
    required: ['roundId', 'card', 'phase', 'exposedBeforeLeavingView'],
    properties: { roundId: ID_OR_NULL, card: { anyOf: [CARD, NULL] }, phase: { type: 'string', enum: ['SHUFFLE', 'COMMENCEMENT', 'BURNING', 'SCOOPING', 'DEALING'] }, exposedBeforeLeavingView: BOOL, evidence: ref('Evidence') },
  },
  UnneededCardDrawn: { type: 'object', additionalProperties: false, required: ['roundId', 'card'], properties: { roundId: ID, card: CARD, evidence: ref('Evidence') } },
  CutCardDrawn: {
    type: 'object',
    additionalProperties: false,
    required: ['roundId', 'timing'],
    properties: { roundId: ID_OR_NULL, timing: { type: 'string', enum: ['DURING_DEALING', 'BEFORE_DEALING', 'BETWEEN_ROUNDS'] }, evidence: ref('Evidence') },
  },
  RoundResulted: { type: 'object', additionalProperties: false, required: ['roundId', 'handNumber', 'outcome', 'paytableRef'], properties: { roundId: ID, handNumber: POSITIVE, outcome: ref('RoundOutcome'), paytableRef: ID } },
  BetSettled: {
    type: 'object',
    additionalProperties: false,
    required: ['betId', 'roundId', 'accountId', 'betCode', 'currency', 'result', 'stake', 'winnings', 'payout', 'net', 'dropped', 'paytableRef', 'revision'],
    properties: {
      betId: ID,
      roundId: ID,
      accountId: ID,
      betCode: BET_CODE,
      currency: CURRENCY,
      result: { type: 'string', enum: ['WIN', 'LOSE', 'PUSH'] },
      stake: MINOR,
      winnings: MINOR,
      payout: MINOR,
      net: SIGNED_MINOR,
      dropped: DROPPED,
      paytableRef: ID,
      revision: POSITIVE,
    },
  },
  RoundVoided: {
    type: 'object',
    additionalProperties: false,
    required: ['roundId', 'cause', 'decision', 'causedBy'],
    properties: {
      roundId: ID,
      cause: { type: 'string', enum: ['MANAGEMENT', 'EXPOSED_CARD', 'DROPPED_CARD', 'CUT_CARD', 'SHOE_VOIDED'] },
      decision: { anyOf: [ref('ManagementDecision'), NULL], description: 'Present when cause is MANAGEMENT.' },
      causedBy: { anyOf: [ID, NULL], description: 'eventId of the table fact that caused an automatic void.' },
    },
  },
  BetRefunded: {
    type: 'object',
    additionalProperties: false,
    required: ['betId', 'roundId', 'accountId', 'betCode', 'currency', 'stake', 'compensates', 'revision'],
    properties: { betId: ID, roundId: ID, accountId: ID, betCode: BET_CODE, currency: CURRENCY, stake: MINOR, compensates: ID, revision: COUNT },
  },
  ResultCorrected: {
    type: 'object',
    additionalProperties: false,
    required: ['roundId', 'cards', 'previousOutcome', 'outcome', 'decision', 'paytableRef'],
    properties: { roundId: ID, cards: { type: 'array', items: CARD, minItems: 4, maxItems: 6 }, previousOutcome: ref('RoundOutcome'), outcome: ref('RoundOutcome'), decision: ref('ManagementDecision'), paytableRef: ID },
  },
  BetResettled: {
    type: 'object',
    additionalProperties: false,
    required: ['betId', 'roundId', 'accountId', 'betCode', 'currency', 'result', 'stake', 'winnings', 'payout', 'net', 'dropped', 'paytableRef', 'revision', 'compensates'],
    properties: {
      betId: ID,
      roundId: ID,
      accountId: ID,
      betCode: BET_CODE,
      currency: CURRENCY,
      result: { type: 'string', enum: ['WIN', 'LOSE', 'PUSH'] },
      stake: MINOR,
      winnings: MINOR,
      payout: MINOR,
      net: SIGNED_MINOR,
      dropped: DROPPED,
      paytableRef: ID,
      revision: POSITIVE,
      compensates: ID,
    },
  },
  ShoeVoided: { type: 'object', additionalProperties: false, required: ['decision', 'roundIds'], properties: { decision: ref('ManagementDecision'), roundIds: IDS } },
  ShoeClosed: { type: 'object', additionalProperties: false, required: ['roundsPlayed', 'cardsRemaining'], properties: { roundsPlayed: COUNT, cardsRemaining: COUNT } },
  DealerChanged: { type: 'object', additionalProperties: false, required: ['previousDealerId', 'dealerId'], properties: { previousDealerId: ID, dealerId: ID } },
  DecisionRequested: {
    type: 'object',
    description: 'A pit manager (the actor) requested a management decision; it takes effect only when a second pit manager approves it.',
    additionalProperties: false,
    required: ['decisionId', 'proposal', 'reason', 'requestedBy', 'expiresAt', 'roundIds', 'dealerIds', 'affectedBets'],
    properties: {
      decisionId: ID,
      proposal: { $ref: '#/definitions/DecisionProposal' },
      reason: REASON,
      requestedBy: ID,
      expiresAt: TIME,
      roundIds: IDS,
      dealerIds: IDS,
      affectedBets: { type: 'array', items: { $ref: '#/definitions/AffectedBet' } },
      evidence: ref('Evidence'),
    },
  },
  DecisionApproved: {
    type: 'object',
    description: 'A second pit manager (the actor) approved the decision; its compensating events follow in the same append.',
    additionalProperties: false,
    required: ['decisionId', 'approvedBy', 'requestedBy', 'reason'],
    properties: { decisionId: ID, approvedBy: ID, requestedBy: ID, reason: { type: ['string', 'null'] }, evidence: ref('Evidence') },
  },
  DecisionRejected: {
    type: 'object',
    description: 'A second pit manager (the actor) rejected the decision: nothing changes.',
    additionalProperties: false,
    required: ['decisionId', 'rejectedBy', 'requestedBy', 'reason'],
    properties: { decisionId: ID, rejectedBy: ID, requestedBy: ID, reason: REASON, evidence: ref('Evidence') },
  },
  DecisionExpired: {
    type: 'object',
    description: 'The decision was not approved before it expired (recorded by the ledger, role system): nothing changes.',
    additionalProperties: false,
    required: ['decisionId', 'requestedBy', 'expiresAt'],
    properties: { decisionId: ID, requestedBy: ID, expiresAt: TIME },
  },
  GamingDayCloseRequested: {
    type: 'object',
    description: 'A pit manager asked to close the current gaming day before it ends; a second pit manager must approve (docs/reports.md §2).',
    additionalProperties: false,
    required: ['requestId', 'gamingDay', 'tableIds', 'reason', 'requestedBy', 'expiresAt'],
    properties: { requestId: ID, gamingDay: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, tableIds: { type: ['array', 'null'], items: ID }, reason: REASON, requestedBy: ID, expiresAt: TIME },
  },
  GamingDayClosed: {
    type: 'object',
    description: "A gaming day closed for a table set: SHA-256 and Ed25519 signature of the frozen report's canonical bytes (RFC 8785), computed from the events up to throughPosition (docs/reports.md §2).",
    additionalProperties: false,
    required: ['gamingDay', 'tableIds', 'throughPosition', 'reportSha256', 'signature', 'keyId', 'trigger'],
    properties: {
      gamingDay: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
      tableIds: { type: 'array', minItems: 1, items: ID },
      throughPosition: { type: 'string', pattern: '^\\d+$' },
      reportSha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      signature: ID,
      keyId: ID,
      trigger: { enum: ['MANAGER', 'AUTOMATIC'] },
      early: { $ref: '#/definitions/EarlyCloseApproval' },
      clockSkew: {
        type: 'array',
        description: 'the largest device clock skew of the day per table (occurredAt − recordedAt, ms), as signed in the report (layout 2 on)',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['tableId', 'deviceEvents', 'largest'],
          properties: {
            tableId: ID,
            deviceEvents: { type: 'integer', minimum: 0 },
            largest: {
              type: ['object', 'null'],
              additionalProperties: false,
              required: ['deviceId', 'skewMs', 'globalPosition', 'eventId'],
              properties: { deviceId: ID, skewMs: { type: 'integer' }, globalPosition: { type: 'string', pattern: '^\\d+$' }, eventId: ID },
            },
          },
        },
      },
    },
  },
  ClockAttested: {
    type: 'object',
    description: "An API attests its clocks at start and daily: what the machine's time synchronisation reports, its own clock and the database's, and their offset (docs/architecture.md §9).",
    additionalProperties: false,
    required: ['host', 'reason', 'source', 'synchronised', 'ledgerClock', 'databaseClock', 'offsetMs'],
    properties: {
      host: ID,
      reason: { enum: ['START', 'PERIODIC'] },
      source: { type: 'string', minLength: 1, maxLength: 500 },
      synchronised: { type: 'boolean' },
      ledgerClock: TIME,
      databaseClock: TIME,
      offsetMs: { type: 'integer' },
    },
  },
  ConfigurationAttested: {
    type: 'object',
    description: 'An API states at start fingerprints of its tables, of the paytables it knows, the ids of its keys (never a secret) and its significant-event settings (docs/significant-events.md, "Configuration at start").',
    additionalProperties: false,
    required: ['host', 'tables', 'paytables', 'keys'],
    properties: {
      host: ID,
      tables: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['tableId', 'variant', 'decks', 'currency', 'virtualTable', 'pairBetsRequireMainBet', 'limitsSha256', 'paytableRef'],
          properties: { tableId: ID, variant: VARIANT, decks: POSITIVE, currency: CURRENCY, virtualTable: BOOL, pairBetsRequireMainBet: BOOL, limitsSha256: SHA256_HEX, paytableRef: ID },
        },
      },
      paytables: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['ref', 'sha256'], properties: { ref: ID, sha256: SHA256_HEX } } },
      keys: {
        type: 'object',
        additionalProperties: false,
        required: ['anchors', 'reports', 'tokens'],
        properties: { anchors: IDS, reports: ID_OR_NULL, tokens: IDS },
      },
      significant: ATTESTED_SIGNIFICANT,
    },
  },
  SignificantEventRaised: {
    type: 'object',
    description:
      'A significant event of the catalogue (docs/significant-events.md) raised by its cause (a ledger event, refusals, the projector, the verifier, a storm of 429s); stream significant-<significantEventId>, version 1.',
    additionalProperties: false,
    required: ['significantEventId', 'code', 'severity', 'cause', 'actor', 'details'],
    properties: {
      significantEventId: ID,
      code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*\\.[A-Z][A-Z0-9_]*$' },
      severity: { type: 'string', enum: ['info', 'low', 'medium', 'high', 'critical'] },
      cause: {
        description:
          "What raised it (docs/significant-events.md, \"Causes\"): a ledger event (untagged, or kind event; with a window for a device's skewed facts), refusals of a window, a projector's record, a verifier's divergence, a minute of 429s.",
        oneOf: [
          {
            type: 'object',
            additionalProperties: false,
            required: ['eventId', 'globalPosition', 'streamId', 'eventType'],
            properties: { kind: { const: 'event' }, eventId: ID, globalPosition: DECIMAL, streamId: ID, eventType: { type: 'string', enum: [...EVENT_TYPES] }, window: CAUSE_WINDOW },
          },
          {
            type: 'object',
            additionalProperties: false,
            required: ['kind', 'errorCode', 'requestId', 'actorId', 'actorRole', 'window'],
            properties: { kind: { const: 'refusal' }, errorCode: ID, reason: ID, requestId: ID, actorId: ID, actorRole: ID, tableId: ID, window: CAUSE_WINDOW },
          },
          {
            type: 'object',
            additionalProperties: false,
            required: ['kind', 'record', 'key', 'consumerGroup', 'reason'],
            properties: { kind: { const: 'projector' }, record: { enum: ['quarantine', 'incident'] }, key: ID, consumerGroup: ID, reason: ID },
          },
          { type: 'object', additionalProperties: false, required: ['kind', 'divergence', 'source', 'where'], properties: { kind: { const: 'verifier' }, divergence: ID, source: ID, where: ID } },
          { type: 'object', additionalProperties: false, required: ['kind', 'window', 'threshold'], properties: { kind: { const: 'rate-limit-window' }, window: CAUSE_WINDOW, threshold: { type: 'integer', minimum: 1 } } },
        ],
      },
      tableId: ID,
      shoeId: ID,
      roundId: ID,
      dealerId: ID,
      actor: { ...ID, description: "Whose act raised it: the cause event's or refusal's actor id, else the raiser (projector, verifier, rate-limits)." },
      details: { type: 'object', additionalProperties: { type: 'string' }, description: 'Small facts of the cause as strings (minor units, ms).' },
    },
  },
  SignificantEventAcknowledged: {
    type: 'object',
    description: "A pit manager or auditor other than the raise's actor acknowledged the significant event with a reason; stream significant-<significantEventId>, version 2.",
    additionalProperties: false,
    required: ['significantEventId', 'code', 'reason', 'acknowledgedBy', 'role'],
    properties: { significantEventId: ID, code: { type: 'string', minLength: 1 }, reason: REASON, acknowledgedBy: ID, role: { type: 'string', enum: ['pit-manager', 'auditor'] } },
  },
};

/** The envelope's fields. */
const ENVELOPE_PROPERTIES: { readonly [K in keyof EventEnvelope]-?: JsonSchema } = {
  eventId: { type: 'string', minLength: 1, description: 'UUID, unique across the ledger; the idempotency and de-duplication key (= header ce_id).' },
  type: { type: 'string', enum: [...EVENT_TYPES], description: 'Past-tense event type literal.' },
  schemaVersion: { type: 'integer', minimum: 1, description: 'Version of the data shape of this type.' },
  streamId: {
    type: 'string',
    pattern: '^(shoe-.+|gaming-day-\\d{4}-\\d{2}-\\d{2}(:.+)?|significant-[0-9a-f-]{36})$',
    description:
      'shoe-<shoeId>: one stream per shoe; gaming-day-<YYYY-MM-DD>: a gaming day\'s closes (ledger-wide events, tableId "*"; gaming-day-<YYYY-MM-DD>:<topic> where several ledgers share one database); significant-<id>: one significant event (raised, then acknowledged).',
  },
  streamVersion: { type: 'integer', minimum: 1, description: '1-based, gap-free position in the stream.' },
  globalPosition: { type: 'string', pattern: '^(0|[1-9][0-9]*)$', description: 'Global position of the ledger event: gap-free across all streams, decimal string (bigint).' },
  tableId: { type: 'string', minLength: 1, description: 'Table id; the Kafka key. "*" for ledger-wide events (a gaming day\'s closes).' },
  occurredAt: { type: 'string', format: 'date-time', description: 'When it happened at the table.' },
  recordedAt: { type: 'string', format: 'date-time', description: 'When the ledger recorded it.' },
  actor: { type: 'object', description: 'Who caused the event.', additionalProperties: false, required: ['id', 'role'], properties: { id: ID, role: { type: 'string', enum: [...ROLES] } } },
  correlationId: { type: 'string', minLength: 1, description: 'Groups every event caused by one request.' },
  causationId: { type: 'string', minLength: 1, description: 'eventId of the cause, or the request id.' },
  prevHash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the previous event of the stream (64 zeros for the first).' },
  hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of prevHash + the canonical JSON of this event without hash and globalPosition.' },
  data: { type: 'object', description: 'The payload; its shape depends on type (see allOf).' },
};

/** The envelope's required fields: all of them. */
const ENVELOPE_REQUIRED = Object.keys(ENVELOPE_PROPERTIES);

/** `#/definitions/<Type>Data`: the name of a type's data schema in {@link ledgerEventJsonSchema}. */
export function dataDefinitionName(type: LedgerEventType): string {
  return `${type}Data`;
}

/**
 * The JSON Schema (draft-07) of a ledger event in its envelope, as on topic
 * `baccarat.ledger.events.v1`: the envelope, `type` one of {@link EVENT_TYPES}, and for each type an
 * `if type = T then data is <T>Data` rule; the definitions are {@link SHARED_DEFINITIONS} and
 * {@link EVENT_DATA_SCHEMAS} (titled `<T> data (v<n>)`).
 * @param id the schema's `$id`
 */
export function ledgerEventJsonSchema(id: string): JsonSchema {
  const definitions: Record<string, object> = { ...SHARED_DEFINITIONS };
  for (const t of EVENT_TYPES) definitions[dataDefinitionName(t)] = { title: `${t} data (v${SCHEMA_VERSIONS[t]})`, ...EVENT_DATA_SCHEMAS[t] };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id,
    title: 'Ledger event (envelope + data)',
    description:
      'Value of topic baccarat.ledger.events.v1: one ledger event in its envelope, as canonical JSON (keys sorted, so the hash can be verified). The `data` shape depends on `type` (the current schema version of every type; older versions are upcast by readers). Generated from the event catalogue (libs/events/src/event-schemas.ts, libs/events/src/catalogue.ts) by scripts/gen-event-schemas.ts: do not edit.',
    type: 'object',
    additionalProperties: false,
    required: ENVELOPE_REQUIRED,
    properties: ENVELOPE_PROPERTIES,
    allOf: EVENT_TYPES.map((t) => ({ if: { properties: { type: { const: t } }, required: ['type'] }, then: { properties: { data: { $ref: `#/definitions/${dataDefinitionName(t)}` } } } })),
    definitions,
  };
}
