import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { AS_OF_DESCRIPTION, IsAsOf } from '../query.dto';

/** Query of a read route whose only parameter is `asOf` (recall, one settlement; docs/reports.md §3). */
export class AsOfQuery {
  @ApiPropertyOptional({ description: AS_OF_DESCRIPTION, example: '2026-01-31T23:59:59Z' }) @IsOptional() @IsAsOf() asOf?: string;
}
