import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, Matches, ValidateNested } from 'class-validator';
import { WriteOptionsDto } from './common.dto';
import { IsMinorUnits } from './validators';

const ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/** One bet from the betting platform. `stake` in minor units. */
export class BetDto {
  @ApiProperty({ example: 'B-000001' }) @Matches(ID) betId!: string;
  @ApiProperty({ example: 'acct-42' }) @Matches(ID) accountId!: string;
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
  @ValidateNested({ each: true })
  @Type(() => BetDto)
  bets!: BetDto[];
}
