import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsIntegerText, IsIsoTime } from '../../queries/query.dto';

/** The period of an export: recording times, `from` inclusive, `to` exclusive (docs/reports.md §5). */
export class ExportPeriodQuery {
  @ApiProperty({ description: 'ISO-8601, inclusive' }) @IsIsoTime() from!: string;
  @ApiProperty({ description: 'ISO-8601, exclusive; after from' }) @IsIsoTime() to!: string;
}

/** Query of `GET /exports/{kind}`. */
export class ExportQuery extends ExportPeriodQuery {
  @ApiPropertyOptional({ enum: ['jsonl', 'csv'], description: 'default jsonl' }) @IsOptional() @IsIn(['jsonl', 'csv']) format?: 'jsonl' | 'csv';
  @ApiPropertyOptional({
    description:
      'events only: the global position the events export ends at (at least the last position of the period), as `positions.through` of `GET /exports/anchors` answered; default: the first signed checkpoint at or after the period',
  })
  @IsOptional()
  @IsIntegerText(1, Number.MAX_SAFE_INTEGER)
  through?: string;
}
