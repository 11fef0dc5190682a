import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, Matches, ValidateNested } from 'class-validator';
import { ID_PATTERN } from '@ledger/events';
import { WriteOptionsDto } from '../../dto/write-options.dto';
import { IsMinorUnits } from '../../dto/validators';

/** One bet from the betting platform. `stake` in minor units (docs/domain-rules.md §4). */
export class BetDto {
  @ApiProperty({ example: 'B-000001' }) @Matches(ID_PATTERN) betId!: string;
  @ApiProperty({ example: 'acct-42' }) @Matches(ID_PATTERN) accountId!: string;
  @ApiProperty({ example: 'BANKER' }) @Matches(/^[A-Z_0-9]{1,32}$/) betCode!: string;
  @ApiProperty({ example: '2500', description: 'minor units, decimal string (or a safe JSON integer)' }) @IsMinorUnits() stake!: string | number;
  @ApiProperty({ example: 'EUR' }) @Matches(/^[A-Z]{3}$/) currency!: string;
}
/** POST /shoes/{shoeId}/rounds/{roundId}/bets: a single bet. */
export class PlaceBetDto extends WriteOptionsDto {
  // @IsObject: @ValidateNested alone lets a missing, null or array `bet` through (the handler then failed with a 500).
  @ApiProperty({ type: BetDto }) @IsObject() @ValidateNested() @Type(() => BetDto) bet!: BetDto;
}
/** POST /shoes/{shoeId}/rounds/{roundId}/bets/batch: up to 10,000 bets, accepted all or none. */
export class PlaceBetBatchDto extends WriteOptionsDto {
  @ApiProperty({ type: [BetDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10000)
  // @IsObject each: @ValidateNested lets an array or null element through (`{"bets":[[]]}` was a 500).
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => BetDto)
  bets!: BetDto[];
}
