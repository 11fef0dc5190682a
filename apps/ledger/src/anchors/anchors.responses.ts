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

/** The significant events' completeness (docs/significant-events.md, "What verify checks"). */
export class SignificantCauses {
  @Int('raises owed by causes older than the grace period where the attested settings say the monitor ran, each looked for') checked!: number;
  @Int('causes too recent to look for their raises (within the grace period)') pending!: number;
  @NStr('where the monitored ledger starts (global position); null: no attestation says a monitor ran, nothing looked for') monitoredFrom!: string | null;
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
