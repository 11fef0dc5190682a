import { Bool, Int, List, NInt, NOne, NStr, Position, Str, Time } from '../kernel/openapi-props';

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
  @Int() otherLedgerAnchors!: number;
  @Int() divergenceCount!: number;
  @NOne(() => Divergence) firstDivergence!: Divergence | null;
  @List(() => Divergence) divergences!: Divergence[];
  @Time() checkedAt!: string;
}
