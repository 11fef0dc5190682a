import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsISO8601, IsOptional, Min } from 'class-validator';

/** Fields every write may carry. */
export class WriteOptionsDto {
  /** When it happened at the table (ISO-8601). Defaults to the time the ledger received it. */
  @ApiPropertyOptional({ example: '2026-11-29T12:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  occurredAt?: string;

  /** The stream version the caller expects; a mismatch answers 409 `STREAM.VERSION_CONFLICT`. */
  @ApiPropertyOptional({ minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  expectedVersion?: number;
}

/** Body of writes that carry nothing else (close betting, cut card, close shoe). */
export class EmptyWriteDto extends WriteOptionsDto {}
