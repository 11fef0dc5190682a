/**
 * The verification report shared by `npm run -s verify` and `GET /audit/anchors/verify`
 * (docs/anchors.md "What verify checks").
 */

/** Where a divergence was found. */
export type DivergenceSource =
  /** a line of the anchor file */
  | 'anchor-file'
  /** a record of the anchors topic */
  | 'anchor-topic'
  /** PostgreSQL's events against the signed stream heads */
  | 'anchors'
  /** PostgreSQL's events against their copy on the ledger topic */
  | 'kafka'
  /** PostgreSQL's stored chain disagrees with itself (stored hash or prev_hash ≠ recomputed) */
  | 'postgres'
  /** the gaming-day closes: their events against the stored signed reports (docs/reports.md §2) */
  | 'closes'
  /** the global positions: every one up to the relay's progress an event or a recorded hole (docs/guarantees.md §5) */
  | 'positions'
  /** the evidence chains: the access log and the wallet runs against themselves and their heads (docs/anchors.md "The evidence chains") */
  | 'evidence'
  /** the significant events: every raise against its cause and the catalogue, every acknowledgement against its raise (docs/significant-events.md) */
  | 'significant-events';

/** What diverges. */
export type DivergenceKind =
  /** the line or record is not a well-formed signed anchor */
  | 'ANCHOR_MALFORMED'
  /** signed by a key none of the given public keys is */
  | 'ANCHOR_KEY_UNKNOWN'
  /** the Ed25519 signature does not verify (forged or altered anchor) */
  | 'ANCHOR_SIGNATURE_INVALID'
  /** the Merkle root does not match the streams the checkpoint lists */
  | 'ANCHOR_MERKLE_MISMATCH'
  /** a checkpoint missing in the sequence, a `previousAnchorHash` not the hash of its predecessor, a position going back */
  | 'ANCHOR_CHAIN_BROKEN'
  /** two different validly signed checkpoints with one seq */
  | 'ANCHOR_FORK'
  /** the file and the topic hold different checkpoints for one seq, or one lacks a checkpoint the other has */
  | 'ANCHOR_COPIES_DIFFER'
  /** the hash chain recomputed from PostgreSQL's rows differs from a signed head */
  | 'HEAD_MISMATCH'
  /** a signed head names a version (or a stream) PostgreSQL does not have */
  | 'ANCHORED_VERSION_MISSING'
  /** an event at a position the anchors cover, in a version no anchor names (inserted afterwards) */
  | 'NOT_ANCHORED'
  /** events beyond the last anchor older than the grace period (anchoring stopped) */
  | 'ANCHORS_BEHIND'
  /** PostgreSQL's event bytes differ from the Kafka copy of the same event id */
  | 'KAFKA_MISMATCH'
  /** an event of PostgreSQL missing from the topic (anchored, or older than the grace period) */
  | 'KAFKA_MISSING'
  /** an event on the topic, of a stream PostgreSQL or the anchors know, that PostgreSQL does not have */
  | 'KAFKA_EXTRA'
  /** two different records on the topic for one event id */
  | 'KAFKA_DUPLICATE_CONFLICT'
  /** PostgreSQL's stored hash or prev_hash is not what its own rows give, or a version is missing */
  | 'STORED_CHAIN_BROKEN'
  /** a GamingDayClosed event whose report is missing, does not hash or verify, or is another close's (replayed) */
  | 'CLOSE_NOT_GENUINE'
  /** a stored close report with no GamingDayClosed event of the ledger naming it (forged or orphaned) */
  | 'CLOSE_WITHOUT_EVENT'
  /** a SignificantEventRaised or SignificantEventAcknowledged the ledger's rules could not have written (unknown code, no such cause, not its id, an acknowledgement by someone whose act raised it, …) */
  | 'SIGNIFICANT_EVENT_NOT_GENUINE'
  /** an event in a significant event's stream (`significant-<id>`) that is not its SignificantEventRaised at version 1 or its SignificantEventAcknowledged at version 2 (a squatted or silenced stream) */
  | 'SIGNIFICANT_STREAM_FOREIGN_EVENT'
  /** a stored cause, where the attested settings say the monitor ran and older than the grace period, without the raise it owes (suppressed, lost or never made) */
  | 'SIGNIFICANT_EVENT_MISSING'
  /** positions up to the relay's progress that hold no event and are no recorded hole (an event removed) */
  | 'POSITION_UNACCOUNTED'
  /** an event inside a recorded hole (a hole forged over it, or an event written after the relay passed) */
  | 'EVENT_IN_HOLE'
  /** the relay's progress beyond the last position the sequence assigned (a forged progress marker) */
  | 'PROGRESS_AHEAD'
  /** an event above the last position the sequence assigned (written around the append) */
  | 'EVENT_BEYOND_SEQUENCE'
  /** an access-log row whose stored hash is not what its columns give (changed after it was written) */
  | 'ACCESS_LOG_ROW_ALTERED'
  /** access-log seqs missing, within the chain or at its end (rows deleted) */
  | 'ACCESS_LOG_ROW_REMOVED'
  /** an access-log row that does not follow its predecessor (its prev_hash or its id out of place) */
  | 'ACCESS_LOG_ROW_REORDERED'
  /** an access-log row recorded before the row before it (back-dated) */
  | 'ACCESS_LOG_ROW_BACKDATED'
  /** access-log rows beyond the chain's recorded head, or the head's hash not the chain's (written around `ledger_log_access`) */
  | 'ACCESS_LOG_HEAD_MISMATCH'
  /** a wallet run whose stored hash is not what its columns give */
  | 'WALLET_RUN_ALTERED'
  /** wallet-run seqs missing (runs deleted), or items of a run that is not recorded */
  | 'WALLET_RUN_REMOVED'
  /** a wallet run that does not follow its predecessor */
  | 'WALLET_RUN_REORDERED'
  /** a wallet run recorded before the run before it (back-dated) */
  | 'WALLET_RUN_BACKDATED'
  /** wallet runs beyond the chain's recorded head, or the head's hash not the chain's */
  | 'WALLET_RUN_HEAD_MISMATCH'
  /** a wallet run's stored items do not digest to the run's `items_sha256` (an item changed, removed or added) */
  | 'WALLET_RUN_ITEMS_ALTERED';

/** One finding. Fields that do not apply are null. */
export interface Divergence {
  readonly source: DivergenceSource;
  readonly kind: DivergenceKind;
  /** The stream concerned; of source `evidence`, the chain (`query_log`, `wallet_match_runs`). */
  readonly streamId: string | null;
  /** Stream version concerned (for `HEAD_MISMATCH`: the signed version whose head differs); of source `evidence`, the row's seq. */
  readonly version: number | null;
  /** Event at that version, when PostgreSQL or Kafka has one; of source `evidence`, the row's id (the access log's id, a run's id). */
  readonly eventId: string | null;
  /** Global position of that event (decimal string), when known. */
  readonly globalPosition: string | null;
  /** Checkpoint concerned, when one is. */
  readonly anchorSeq: number | null;
  /** What exactly differs, for the auditor. */
  readonly reason: string;
}

/** A stretch of positions after the first monitored one where an attestation said the monitor was off (nothing looked for). */
export interface UnmonitoredRange {
  /** Decimal string: the attestation saying the monitor is off. */
  readonly from: string;
  /** Decimal string: the next attestation of its ledger (exclusive), or null: to the end. */
  readonly to: string | null;
  /** Its ledger's topic (null: the database's only ledger). */
  readonly topic: string | null;
}

/** What verify's completeness of the significant events counted (`checkSignificantCompleteness`; docs/significant-events.md, "What verify checks"). */
export interface CompletenessTally {
  /** Raises owed by causes beyond the grace period in a monitored span, each looked for. */
  readonly checked: number;
  /** Causes in a monitored span recorded within the grace period of `now` (either side): the monitor may not have raised them yet, not checked. */
  readonly pending: number;
  /** Decimal string: where the first monitored span starts, or null: no attestation says a monitor ran (completeness not checked). */
  readonly monitoredFrom: string | null;
  /** After `monitoredFrom`, where an attestation said the monitor was off (at most `MAX_RANGES` of significant-completeness.ts; nothing looked for there but that attestation's own raise). */
  readonly unmonitored: readonly UnmonitoredRange[];
  /** Candidate causes in a monitored span whose data no rule of the ledger writes (a malformed event raises nothing; the projector quarantines it). */
  readonly malformed: number;
  /** Candidate causes of a ledger (outbox topic) no attestation covers, where the database's ledgers are attested: not looked at. */
  readonly unattestedLedger: number;
  /** Whether a shoe's close was owed its fairness alerts (verify given the gaming-day rule). */
  readonly fairness: boolean;
}

/** The report. `ok` ⇔ no divergence. */
export interface VerificationReport {
  readonly ok: boolean;
  /** The ledger whose checkpoints were checked. */
  readonly ledgerId: string;
  /** Valid checkpoints of this ledger (file and topic merged by seq). */
  readonly anchorsChecked: number;
  /** The last valid checkpoint, if any. */
  readonly lastAnchor: { readonly seq: number; readonly globalPosition: string; readonly createdAt: string } | null;
  readonly streamsChecked: number;
  readonly eventsChecked: number;
  /** Records read from the ledger topic; null when Kafka was not checked. */
  readonly kafkaRecordsChecked: number | null;
  /** Events beyond the last checkpoint not yet on Kafka but younger than the grace period. */
  readonly pendingOnKafka: number;
  /** The significant events' completeness (step 7): what was looked for and what was not. */
  readonly significantCauses: CompletenessTally;
  /** Lines or records of other ledgers (skipped). */
  readonly otherLedgerAnchors: number;
  /** Number of divergences found (the list below is capped). */
  readonly divergenceCount: number;
  /** The first divergence in ledger order (lowest global position; anchor problems first), or null. */
  readonly firstDivergence: Divergence | null;
  /** The divergences, first first, at most the cap. */
  readonly divergences: readonly Divergence[];
  /** When the check ran (ISO-8601). */
  readonly checkedAt: string;
}

/** Most divergences held before sorting (the first one in ledger order must not be lost). */
const KEPT_BEFORE_SORT = 100_000;

/** Collects divergences up to a cap, counting all. */
export class DivergenceList {
  private readonly items: Divergence[] = [];
  private total = 0;

  /** @param cap most divergences kept (all are counted) */
  constructor(private readonly cap: number) {}

  add(d: Omit<Divergence, 'streamId' | 'version' | 'eventId' | 'globalPosition' | 'anchorSeq'> & Partial<Divergence>): void {
    this.total++;
    if (this.items.length < KEPT_BEFORE_SORT) {
      this.items.push({ streamId: null, version: null, eventId: null, globalPosition: null, anchorSeq: null, ...d });
    }
  }

  get count(): number {
    return this.total;
  }

  /** Sorted: anchor-log problems first (by seq), then by global position, then stream and version; capped. */
  sorted(): Divergence[] {
    const rank = (d: Divergence) => (d.source === 'anchor-file' || d.source === 'anchor-topic' ? 0 : 1);
    return [...this.items]
      .sort((a, b) => {
        if (rank(a) !== rank(b)) return rank(a) - rank(b);
        if (rank(a) === 0) return (a.anchorSeq ?? 0) - (b.anchorSeq ?? 0);
        const pa = a.globalPosition === null ? null : BigInt(a.globalPosition);
        const pb = b.globalPosition === null ? null : BigInt(b.globalPosition);
        if (pa !== null && pb !== null && pa !== pb) return pa < pb ? -1 : 1;
        if ((pa === null) !== (pb === null)) return pa === null ? 1 : -1;
        const s = (a.streamId ?? '').localeCompare(b.streamId ?? '');
        if (s !== 0) return s;
        return (a.version ?? 0) - (b.version ?? 0);
      })
      .slice(0, this.cap);
  }
}
