import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { IsGamingDay, IsIsoTime, PageQuery } from '../kernel/query.dto';
import { MATCH_STATUSES } from './wallet-match';
import { COLUMN_NAME } from './wallet-file';

/**
 * Query DTOs of the wallet-matching routes (docs/reports.md §4). The column mapping is one query
 * parameter per field, `map.<field>=<column>` (e.g. `map.transactionId=txn_id`): the file's CSV
 * column or JSONL key of the field; unmapped fields use their own name.
 */
const col = (field: string) => ApiPropertyOptional({ name: `map.${field}`, description: `the file's column (CSV) or key (JSONL) of ${field}; default ${field}`, pattern: COLUMN_NAME.source });
const colCheck = (field: string) => Matches(COLUMN_NAME, { message: `map.${field} must be a column name of 1..64 of A-Z a-z 0-9 space _ . -` });

/** Query of `POST /reconciliation/wallet-files`. */
export class WalletUploadQuery {
  @ApiPropertyOptional({ description: 'first gaming day of the scope, inclusive (default: the earliest gaming day of the file)' }) @IsOptional() @IsGamingDay() fromDay?: string;
  @ApiPropertyOptional({ description: 'last gaming day of the scope, inclusive (default: the latest gaming day of the file)' }) @IsOptional() @IsGamingDay() toDay?: string;
  @ApiPropertyOptional({ description: 'instead of gaming days, a time period: its start (ISO-8601 with offset, inclusive); with `to`' }) @IsOptional() @IsIsoTime() from?: string;
  @ApiPropertyOptional({ description: 'the end of the time period (ISO-8601 with offset, exclusive); with `from`' }) @IsOptional() @IsIsoTime() to?: string;
  @col('transactionId') @IsOptional() @colCheck('transactionId') 'map.transactionId'?: string;
  @col('roundId') @IsOptional() @colCheck('roundId') 'map.roundId'?: string;
  @col('betId') @IsOptional() @colCheck('betId') 'map.betId'?: string;
  @col('accountId') @IsOptional() @colCheck('accountId') 'map.accountId'?: string;
  @col('type') @IsOptional() @colCheck('type') 'map.type'?: string;
  @col('amount') @IsOptional() @colCheck('amount') 'map.amount'?: string;
  @col('currency') @IsOptional() @colCheck('currency') 'map.currency'?: string;
  @col('time') @IsOptional() @colCheck('time') 'map.time'?: string;
}

/** Query of `GET /reconciliation/wallet-files`. */
export class WalletRunsQuery extends PageQuery {}

/** Query of `GET /reconciliation/wallet-files/{runId}/items`. */
export class WalletItemsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: MATCH_STATUSES }) @IsOptional() @IsIn(MATCH_STATUSES) status?: (typeof MATCH_STATUSES)[number];
  @ApiPropertyOptional({ enum: ['json', 'csv'], description: 'json (default): a page; csv: every item (of the status) as one CSV stream' }) @IsOptional() @IsIn(['json', 'csv']) format?: 'json' | 'csv';
}
