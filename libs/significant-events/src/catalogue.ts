import type { SignificantEventSource, SignificantEventSpec } from './spec';

const event = (eventType: Extract<SignificantEventSource, { kind: 'ledger-event' }>['eventType']) => ({ kind: 'ledger-event', eventType }) as const;
const refusal = (errorCode: Extract<SignificantEventSource, { kind: 'refusal' }>['errorCode'], reasons?: readonly string[]) =>
  reasons ? ({ kind: 'refusal', errorCode, reasons } as const) : ({ kind: 'refusal', errorCode } as const);
const monitor = (name: Extract<SignificantEventSource, { kind: 'monitor' }>['monitor']) => ({ kind: 'monitor', monitor: name }) as const;
const VERIFIER = { kind: 'verifier' } as const;
const PROJECTOR = { kind: 'projector' } as const;

/**
 * Every kind of significant event of the ledger (docs/significant-events.md): the one place that
 * says each kind's code, severity, who raises it and when, its thresholds and the configuration
 * variables they are read from, whether a second person must acknowledge it, and which regulatory
 * texts ask for it. Whatever raises, publishes, acknowledges or measures a significant event reads
 * its kind here; docs/significant-events.md is generated from it
 * (`npx tsx scripts/gen-significant-event-docs.ts`).
 *
 * A code is a stable string `AREA.REASON`. Adding a kind = adding a line here.
 */
export const SIGNIFICANT_EVENTS = {
  // --- the game: what the ledger changed after the fact (docs/domain-rules.md §5, §6) ----------------
  'ROUND.VOIDED': {
    title: 'round voided',
    severity: 'medium',
    category: 'game',
    raisedBy: [event('RoundVoided')],
    trigger: 'A round is voided by a management decision, or automatically by an exposed, dropped or cut card; every stake of it is refunded (a round voided with its shoe is part of `SHOE.VOIDED_BY_DECISION` instead).',
    threshold: null,
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2', 'UKGC-RTS-17A'],
  },
  'RESULT.CORRECTED': {
    title: 'result corrected',
    severity: 'high',
    category: 'game',
    raisedBy: [event('ResultCorrected')],
    trigger: "Management corrects a resulted round's cards (four eyes); its bets are settled again.",
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2', 'UKGC-RTS-17A'],
  },
  'SHOE.VOIDED_BY_DECISION': {
    title: 'shoe voided',
    severity: 'high',
    category: 'game',
    raisedBy: [event('ShoeVoided')],
    trigger: 'Management voids a whole shoe (four eyes); every round of it not yet voided is voided with it.',
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2', 'UKGC-RTS-17A'],
  },
  'COMMENCEMENT.CORRECTED': {
    title: 'commencement corrected',
    severity: 'medium',
    category: 'game',
    raisedBy: [event('CommencementCorrected')],
    trigger: "Management corrects a shoe's commencement card (four eyes) before its first hand.",
    threshold: null,
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.7', 'UKGC-RTS-17A'],
  },

  // --- money -------------------------------------------------------------------------------------
  'WIN.LARGE': {
    title: 'large win',
    severity: 'high',
    category: 'money',
    raisedBy: [event('BetSettled'), event('BetResettled')],
    trigger: "A bet is settled (or settled again) as a win whose winnings reach either threshold: a multiple of its stake, or an amount in minor units of the bet's currency.",
    threshold: [
      { setting: 'SIGNIFICANT_WIN_MULTIPLE', measure: 'winnings ÷ stake', comparison: 'at-least', unit: 'ratio', default: { numerator: '100', denominator: '1' } },
      { setting: 'SIGNIFICANT_WIN_AMOUNT_MINOR', measure: 'winnings', comparison: 'at-least', unit: 'minor-units', default: '1000000' },
    ],
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2', 'IGS-5.8.3'],
  },

  // --- the staff and the cards (docs/domain-rules.md §5.2–§5.5) -------------------------------------
  'DEALER.CHANGED_MID_SHOE': {
    title: 'dealer changed mid-shoe',
    severity: 'low',
    category: 'staff',
    raisedBy: [event('DealerChanged')],
    trigger: "The dealer of a shoe changes after its first round opened: the monitor reads the shoe's stream for a `RoundOpened` before the `DealerChanged` (a change before it is the ordinary start of a shoe and raises nothing).",
    threshold: null,
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.7', 'UKGC-RTS-17A'],
  },
  'CARD.EXPOSED': {
    title: 'exposed card',
    severity: 'low',
    category: 'cards',
    raisedBy: [event('CardExposed')],
    trigger: 'A card is exposed (while bets are open it voids the hand; during commencement it is recorded only).',
    threshold: null,
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.7', 'UKGC-RTS-17A'],
  },
  'CARD.DROPPED': {
    title: 'dropped card',
    severity: 'low',
    category: 'cards',
    raisedBy: [event('CardDropped')],
    trigger: 'A card leaves the camera view (dropped), in any phase.',
    threshold: null,
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.7', 'UKGC-RTS-17A'],
  },
  'CARD.UNNEEDED': {
    title: 'unneeded card drawn',
    severity: 'low',
    category: 'cards',
    raisedBy: [event('UnneededCardDrawn')],
    trigger: 'A card the tableau did not call for is drawn and exposed; it left the shoe but not into a hand.',
    threshold: null,
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.7', 'UKGC-RTS-17A'],
  },
  'CARD.WRONG': {
    title: 'wrong card',
    severity: 'medium',
    category: 'cards',
    raisedBy: [refusal('TABLEAU.VIOLATION')],
    trigger: 'A table device reports a card to a position the tableau does not call for (dealt out of order, or a third card the rules forbid); the API refuses it.',
    threshold: null,
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.7', 'UKGC-RTS-17A'],
  },
  'CARD.ACCOUNTING_ANOMALY': {
    title: 'card accounting anomaly',
    severity: 'high',
    category: 'cards',
    raisedBy: [refusal('SHOE.CARD_EXCEEDS_DECKS')],
    trigger: 'A table device reports a card the shoe no longer holds (every deck has given it): a misread card, or a card that is not of the shoe; the API refuses it.',
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2', 'UKGC-RTS-17A'],
  },

  // --- the table devices --------------------------------------------------------------------------
  'DEVICE.CLOCK_SKEW': {
    title: 'device clock skew over the bound',
    severity: 'medium',
    category: 'device',
    raisedBy: [refusal('TIME.OCCURRED_AT_OUT_OF_RANGE', ['IN_THE_FUTURE', 'BEFORE_SHOE_OPENED']), monitor('clock-skew')],
    trigger:
      "A device's `occurredAt` is further from the ledger's clock than the bound the API accepts: a write refused as ahead of the ledger's clock, or as before its shoe's opening, by more than the bound; or a skew measured by the clock-skew monitor.",
    threshold: [
      {
        setting: 'OCCURRED_AT_MAX_SKEW_MS',
        measure: "occurredAt − the ledger's clock (ahead of it), or the shoe's opening − occurredAt (before it)",
        comparison: 'above',
        unit: 'ms',
        default: 5000,
      },
    ],
    acknowledgement: 'none',
    regulation: ['MS-8-4.5', 'AGCO-4.02.7'],
  },

  // --- the books (docs/reports.md §2) -------------------------------------------------------------
  'GAMING_DAY.CLOSED_EARLY': {
    title: 'early gaming-day close',
    severity: 'medium',
    category: 'reporting',
    raisedBy: [event('GamingDayClosed')],
    trigger: 'A gaming day is closed before it ended (a close carrying `early`: requested by one pit manager, approved by another).',
    threshold: null,
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2'],
  },

  // --- tamper evidence (docs/guarantees.md §8) ------------------------------------------------------
  'CHAIN.DIVERGED': {
    title: 'hash chain divergence',
    severity: 'critical',
    category: 'integrity',
    raisedBy: [VERIFIER],
    trigger: "The verifier finds PostgreSQL's events disagreeing with a signed head or with the Kafka copy (a head mismatch, an event not anchored, bytes differing from the topic, an event missing from it).",
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2', 'UKGC-RTS-17A'],
  },
  'ANCHOR.DIVERGED': {
    title: 'anchor divergence',
    severity: 'critical',
    category: 'integrity',
    raisedBy: [VERIFIER],
    trigger: 'The verifier finds a signed checkpoint malformed, unverifiable, forked, out of chain, or different between the anchor file and the anchors topic, or the anchoring behind by more than its grace period.',
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2'],
  },
  'READ_MODEL.DIVERGED': {
    title: 'read model divergence',
    severity: 'critical',
    category: 'integrity',
    raisedBy: [refusal('GAMING_DAY.READ_MODEL_DIVERGED')],
    trigger: "A gaming-day close finds the read model's entries disagreeing with the verified events; the API refuses to sign the day and records an integrity incident.",
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2'],
  },

  // --- the read side (docs/architecture.md §7) ------------------------------------------------------
  'RECORD.QUARANTINED': {
    title: 'record quarantined and dead-lettered',
    severity: 'high',
    category: 'read-side',
    raisedBy: [PROJECTOR],
    trigger: 'The projector refuses a record of the events topic (not a genuine ledger event): it is never applied, kept in the quarantine and copied to the dead-letter topic.',
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.7', 'IGS-5.8.2'],
  },
  'PROJECTION.HALTED': {
    title: 'projection halted',
    severity: 'high',
    category: 'read-side',
    raisedBy: [PROJECTOR],
    trigger: 'The projector halts a partition with a projection incident (a gap, an inconsistent event, a topic re-created or truncated); its reports stop there until resumed.',
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.7'],
  },

  // --- what the API was started with --------------------------------------------------------------
  'CONFIG.TABLES_CHANGED': {
    title: 'tables or limits changed at start',
    severity: 'medium',
    category: 'configuration',
    raisedBy: [event('ConfigurationAttested')],
    trigger:
      "The API's `ConfigurationAttested` at start states tables (added, removed, variant, decks, currency, virtual table, pair-bet rule) or bet limits (by digest) different from the ledger's previous attestation (`TABLES_FILE`); the first attestation ever raises nothing.",
    threshold: null,
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.8'],
  },
  'CONFIG.PAYTABLES_CHANGED': {
    title: 'paytables changed at start',
    severity: 'high',
    category: 'configuration',
    raisedBy: [event('ConfigurationAttested')],
    trigger:
      "The API's `ConfigurationAttested` at start puts a table on a paytable (`id@version`) other than the ledger's previous attestation did, or states a paytable whose content digest differs, that it did not know, or that it no longer knows; the first attestation ever raises nothing.",
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.8', 'IGS-5.8.2'],
  },
  'CONFIG.KEYS_ROTATED': {
    title: 'keys rotated',
    severity: 'high',
    category: 'configuration',
    raisedBy: [event('ConfigurationAttested')],
    trigger:
      "The API's `ConfigurationAttested` at start names a signing or verification key (anchors' verification keys, the reports' signing key, the tokens' verification keys: ids and digests only) not named by the ledger's previous attestation, or no longer one it named; the first attestation ever raises nothing.",
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.8', 'IGS-5.8.2'],
  },

  'CONFIG.SIGNIFICANT_SETTINGS_CHANGED': {
    title: 'significant-event settings changed',
    severity: 'high',
    category: 'configuration',
    raisedBy: [event('ConfigurationAttested')],
    trigger:
      "The API's `ConfigurationAttested` at start states significant-event settings (`SIGNIFICANT_MONITOR`, `SIGNIFICANT_WIN_MULTIPLE`, `SIGNIFICANT_WIN_AMOUNT_MINOR`, `OCCURRED_AT_MAX_SKEW_MS`, `FAIRNESS_ALERT_CONFIDENCE`, `SIGNIFICANT_FLOOD_WINDOW_SECONDS`) other than the ledger's previous attestation (one without them counts as the defaults): whoever raises a threshold, lowers the confidence or turns the monitor off is seen; the first attestation ever raises nothing. `npm run -s verify` detects every raise again with the settings attested in force at its cause.",
    threshold: null,
    acknowledgement: 'second-person',
    regulation: ['AGCO-4.02.8', 'IGS-5.8.2'],
  },

  // --- the HTTP edge ------------------------------------------------------------------------------
  'RATE.LIMIT_STORM': {
    title: 'rate-limit storm',
    severity: 'medium',
    category: 'edge',
    raisedBy: [monitor('rate-limits')],
    trigger: 'The API refuses requests over their budgets (429 `RATE.*`), over all callers, at or above the threshold within one minute.',
    threshold: [{ setting: 'RATE_LIMIT_STORM_PER_MINUTE', measure: '429 refusals in one minute', comparison: 'at-least', unit: 'per-minute', default: 600 }],
    acknowledgement: 'none',
    regulation: ['AGCO-4.02.7'],
  },

  // --- fairness -----------------------------------------------------------------------------------
  'STATISTICS.OUT_OF_BOUNDS': {
    title: 'statistical alert',
    severity: 'high',
    category: 'fairness',
    raisedBy: [event('ShoeClosed')],
    trigger:
      "A shoe closes (`ShoeClosed`) and the API's significant-event monitor, from the stored events of the table's gaming day up to that close (never the read model), finds the observed frequencies (outcomes, pairs, naturals, the game's side outcomes, dealt card ranks) of a scope failing a goodness-of-fit test (chi-squared, or exact binomial where counts are small) against the PAR engine's exact probabilities; the scopes are the shoe, its closing dealer's gaming day at the table and the table's gaming day; one raise per failing scope, naming its failed statistics, p-values and observed against expected counts. Each test at the Bonferroni level (1 − confidence) / (3 scopes × the game's statistics × 32 looks), so an honest table alerts on at most 1 − confidence of its gaming days (5 % at 95/100; docs/fairness.md). `npm run -s verify` computes each raise again from the events.",
    threshold: [
      {
        setting: 'FAIRNESS_ALERT_CONFIDENCE',
        measure: "confidence per table per gaming day that an honest table raises no alert (each test's 1 − p-value against 1 − (1 − confidence) / tests a day)",
        comparison: 'above',
        unit: 'ratio',
        default: { numerator: '95', denominator: '100' },
      },
    ],
    acknowledgement: 'second-person',
    regulation: ['COMAR-36.05.02.17.F', 'UKGC-RTS-17A', 'AGCO-4.02.7'],
  },
} as const satisfies Record<string, SignificantEventSpec>;
