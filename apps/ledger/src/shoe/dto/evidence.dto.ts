import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, Matches, registerDecorator, ValidateNested, type ValidationOptions } from 'class-validator';
import { CAMERA_ID_PATTERN, EVIDENCE_FIELDS, SEGMENT_REF_PATTERN, TIMECODE_PATTERN, type Evidence } from '@ledger/events';
import type { RefusalContext } from '../../common/validation.pipe';
import { WriteOptionsDto } from './write-options.dto';

/** The message prefix of the evidence rules' problems (docs/reports.md §7); the code itself travels in {@link EVIDENCE_REFUSAL}. */
export const EVIDENCE_INVALID = 'EVIDENCE.INVALID';

/** The context of every evidence rule: failing one answers 400 `EVIDENCE.INVALID` (read by `LedgerValidationPipe`). */
export const EVIDENCE_REFUSAL: RefusalContext = { code: 'EVIDENCE.INVALID' };

/**
 * Video evidence of a table fact or a management decision (docs/reports.md §7): at least one of
 * the three fields; any other key is refused (the API's `forbidNonWhitelisted`). Failing any rule
 * answers 400 `EVIDENCE.INVALID` with the problems listed; nothing is recorded.
 */
export class EvidenceDto {
  @ApiPropertyOptional({ example: 'CAM-07', pattern: CAMERA_ID_PATTERN.source, description: 'camera or channel id, 1..64 of A-Z a-z 0-9 _ . : / -' })
  @IsOptional()
  @Matches(CAMERA_ID_PATTERN, { message: `${EVIDENCE_INVALID}: cameraId must be 1..64 characters of A-Z a-z 0-9 _ . : / -`, context: EVIDENCE_REFUSAL })
  cameraId?: string;

  @ApiPropertyOptional({ example: '21:04:10:12', pattern: TIMECODE_PATTERN.source, description: 'SMPTE timecode HH:MM:SS:FF (HH:MM:SS;FF drop frame), frames 00..59' })
  @IsOptional()
  @Matches(TIMECODE_PATTERN, { message: `${EVIDENCE_INVALID}: timecode must be an SMPTE timecode HH:MM:SS:FF or HH:MM:SS;FF`, context: EVIDENCE_REFUSAL })
  timecode?: string;

  @ApiPropertyOptional({ example: 'vms://site-1/cam-07/2026-11-29T21:04:00Z', pattern: SEGMENT_REF_PATTERN.source, description: 'video segment id or URI, 1..256 printable ASCII characters, no spaces' })
  @IsOptional()
  @Matches(SEGMENT_REF_PATTERN, { message: `${EVIDENCE_INVALID}: segmentRef must be 1..256 printable ASCII characters without spaces`, context: EVIDENCE_REFUSAL })
  segmentRef?: string;
}

/** The evidence object names at least one of its fields (an empty `{}` says nothing and is refused). */
function HasSomeEvidence(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'hasSomeEvidence',
      target: object.constructor,
      propertyName,
      options: { message: `${EVIDENCE_INVALID}: ${propertyName} must name at least one of ${EVIDENCE_FIELDS.join(', ')}`, ...options, context: EVIDENCE_REFUSAL },
      validator: {
        validate: (v: unknown) => v === null || v === undefined || (typeof v === 'object' && EVIDENCE_FIELDS.some((k) => (v as Record<string, unknown>)[k] !== undefined)),
      },
    });
}

/** Fields every write of a table fact or a management decision may carry: {@link WriteOptionsDto} and optional evidence. */
export class FactWriteDto extends WriteOptionsDto {
  /** Where the video of this fact or decision is (docs/reports.md §7); recorded in the event when given. */
  @ApiPropertyOptional({ type: EvidenceDto, description: 'video evidence (docs/reports.md §7): camera, SMPTE timecode, segment reference' })
  @IsOptional()
  @IsObject({ message: `${EVIDENCE_INVALID}: evidence must be an object`, context: EVIDENCE_REFUSAL })
  @HasSomeEvidence()
  @ValidateNested()
  @Type(() => EvidenceDto)
  evidence?: EvidenceDto;
}

/**
 * The plain {@link Evidence} of a validated body's `evidence` (only the fields given), or null when
 * there is none: what is recorded in the event's data.
 */
export function evidenceOf(dto: EvidenceDto | null | undefined): Evidence | null {
  if (!dto) return null;
  const out: { cameraId?: string; timecode?: string; segmentRef?: string } = {};
  if (typeof dto.cameraId === 'string') out.cameraId = dto.cameraId;
  if (typeof dto.timecode === 'string') out.timecode = dto.timecode;
  if (typeof dto.segmentRef === 'string') out.segmentRef = dto.segmentRef;
  return Object.keys(out).length ? out : null;
}
