import { ApiProperty } from '@nestjs/swagger';
import { List, NStr, One, Str } from '../kernel/openapi-props';
import { ReportHeaderSchema } from '../kernel/report-header.dto';

/** `ExportPositions` (export-kinds.ts): decimal global positions, null when the period recorded no event. */
export class ExportPositionsSchema {
  @NStr('lowest position recorded in the period') first!: string | null;
  @NStr('highest position recorded in the period') periodLast!: string | null;
  @NStr('where the events export ends: the first signed checkpoint at or after periodLast, else periodLast') through!: string | null;
}

/** One anchored stream head (docs/anchors.md, "The format"). */
export class ExportAnchoredStream {
  @Str() streamId!: string;
  @ApiProperty({ type: 'integer' }) version!: number;
  @Str('64 hex') headHash!: string;
}

/** A signed checkpoint (docs/anchors.md, "The format"). */
export class ExportCheckpoint {
  @Str() format!: string;
  @Str() ledgerId!: string;
  @ApiProperty({ type: 'integer' }) seq!: number;
  @Str() createdAt!: string;
  @Str() globalPosition!: string;
  @List(() => ExportAnchoredStream) streams!: ExportAnchoredStream[];
  @Str() merkleRoot!: string;
  @Str() previousAnchorHash!: string;
  @Str() keyId!: string;
}

/** A signed anchor: a line of the anchor file. */
export class ExportSignedAnchor {
  @One(() => ExportCheckpoint) checkpoint!: ExportCheckpoint;
  @Str() keyId!: string;
  @Str('Ed25519, base64') signature!: string;
}

/** A public key of the anchors. */
export class ExportPublicKey {
  @Str({ example: 'ed25519:86f4c4bcd694dfc3' }) keyId!: string;
  @Str('PEM, SubjectPublicKeyInfo') pem!: string;
}

/** `GET /exports/anchors`: what the events of a period verify against. */
export class ExportAnchorsResponse {
  @One(() => ReportHeaderSchema) header!: ReportHeaderSchema;
  @Str({ example: 'ledger@16384' }) ledgerId!: string;
  @One(() => ExportPositionsSchema) positions!: ExportPositionsSchema;
  @List(() => ExportPublicKey) publicKeys!: ExportPublicKey[];
  @List(() => ExportSignedAnchor) anchors!: ExportSignedAnchor[];
}
