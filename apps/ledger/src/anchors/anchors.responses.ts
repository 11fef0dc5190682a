import { Bool, Int, List, NInt, NOne, NStr, One, Position, Str, Time } from '../kernel/openapi-props';

/**
 * The response schema of `GET /anchors/verify` (docs/openapi.json; the console's types are generated
 * from it). Classes only describe; the controller answers plain objects of these shapes.
 */

/** The last valid checkpoint of the anchors. */
export class AnchorRef {
  @Int() seq!: number;
  @Position() globalPosition!: string;
  @Time() createdAt!: string;
}

/** A divergence between PostgreSQL, the anchors and Kafka. */
export class Divergence {
  @Str() source!: string;
  @Str() kind!: string;
  @NStr() streamId!: string | null;
  @NInt() version!: number | null;
  @NStr() eventId!: string | null;
  @NStr() globalPosition!: string | null;
  @NInt() anchorSeq!: number | null;
  @Str() reason!: string;
}

/** A stretch of the ledger where an attestation said the significant-event monitor was off. */
export class UnmonitoredRange {
  @Position('the attestation saying the monitor is off') from!: string;
  @NStr('the next attestation of its ledger (exclusive); null: to the end') to!: string | null;
  @NStr("its ledger's topic; null: the database's only ledger") topic!: string | null;
}

/** The significant events' completeness (docs/significant-events.md, "What verify checks"). */
export class SignificantCauses {
  @Int('raises owed by causes beyond the grace period where the attested settings say the monitor ran, each looked for') checked!: number;
  @Int('causes recorded within the grace period of the check (either side): not yet looked for') pending!: number;
  @NStr('where the monitored ledger starts (global position); null: no attestation says a monitor ran, nothing looked for') monitoredFrom!: string | null;
  @List(() => UnmonitoredRange, 'after monitoredFrom, where an attestation said the monitor was off (at most 100)') unmonitored!: UnmonitoredRange[];
  @Int('candidate causes whose data no rule of the ledger writes (raise nothing)') malformed!: number;
  @Int('candidate causes of a ledger (outbox topic) no attestation covers: not looked at') unattestedLedger!: number;
  @Bool("whether a shoe's close was owed its fairness alerts (the gaming-day rule known)") fairness!: boolean;
}

/** `GET /audit/anchors/verify` (docs/anchors.md). */
export class AnchorsVerification {
  @Bool() ok!: boolean;
  @Str() ledgerId!: string;
  @Int() anchorsChecked!: number;
  @NOne(() => AnchorRef) lastAnchor!: AnchorRef | null;
  @Int() streamsChecked!: number;
  @Int() eventsChecked!: number;
  @NInt('null when Kafka was not checked') kafkaRecordsChecked!: number | null;
  @Int() pendingOnKafka!: number;
  @One(() => SignificantCauses) significantCauses!: SignificantCauses;
  @Int() otherLedgerAnchors!: number;
  @Int() divergenceCount!: number;
  @NOne(() => Divergence) firstDivergence!: Divergence | null;
  @List(() => Divergence) divergences!: Divergence[];
  @Time() checkedAt!: string;
}
