import { ApiProperty } from '@nestjs/swagger';
import { Enum, Int, List, NStr, One, Str } from '../kernel/openapi-props';
import { ReportHeaderSchema } from '../kernel/report-header.dto';
import { EXPORT_KINDS } from './export-kinds';

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

/** The period of a bundle. */
export class ExportPeriodSchema {
  @Str('ISO-8601, inclusive') from!: string;
  @Str('ISO-8601, exclusive') to!: string;
}

/** One file as the signed manifest lists it (`ManifestFile`, export-manifest.ts). */
export class ExportManifestFile {
  @Str({ example: 'events.jsonl' }) name!: string;
  @Enum(EXPORT_KINDS) kind!: string;
  @Enum(['jsonl', 'csv']) format!: string;
  @Int('data rows') rows!: number;
  @Int('size in bytes') bytes!: number;
  @Str('SHA-256 of the file, 64 hex') sha256!: string;
  @One(() => ReportHeaderSchema) header!: ReportHeaderSchema;
  @Str('the export receipt it was signed from') receipt!: string;
}

/** A checkpoint as the signed manifest names it. */
export class ExportManifestAnchor {
  @Int() seq!: number;
  @Str('SHA-256 of the checkpoint’s canonical JSON, 64 hex') hash!: string;
}

/** The signed part of a bundle manifest (`ManifestBody`, export-manifest.ts; docs/reports.md §5). */
export class ExportManifestBody {
  @Str({ example: 'baccarat-ledger-export/2' }) format!: string;
  @One(() => ReportHeaderSchema) header!: ReportHeaderSchema;
  @Str({ example: 'ledger@16384' }) ledgerId!: string;
  @One(() => ExportPeriodSchema) period!: ExportPeriodSchema;
  @One(() => ExportPositionsSchema) positions!: ExportPositionsSchema;
  @List(() => ExportManifestFile, 'one file of each kind') files!: ExportManifestFile[];
  @List(() => ExportManifestAnchor, 'the checkpoints the bundle carries, in seq order') anchors!: ExportManifestAnchor[];
  @Str({ example: 'ed25519:86f4c4bcd694dfc3' }) keyId!: string;
  @Str('ISO-8601 UTC') signedAt!: string;
}

/** `GET /exports/manifest`: a bundle's `manifest.json`. */
export class ExportManifestResponse {
  @Str({ example: 'baccarat-ledger-export/2' }) format!: string;
  @One(() => ExportManifestBody) signed!: ExportManifestBody;
  @Str({ example: 'ed25519:86f4c4bcd694dfc3' }) keyId!: string;
  @Str('Ed25519 over the canonical JSON (RFC 8785) of signed, base64') signature!: string;
  @List(() => ExportSignedAnchor, 'the checkpoints signed.anchors names, as stored') anchors!: ExportSignedAnchor[];
  @List(() => ExportPublicKey, 'the public keys the API knows: information only, a verifier trusts the key the operator published') publicKeys!: ExportPublicKey[];
}
