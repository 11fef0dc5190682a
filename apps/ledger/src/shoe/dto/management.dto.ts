import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, Matches } from 'class-validator';
import { WriteOptionsDto } from './common.dto';
import { IsCard, REASON_PATTERN } from './validators';

/** A management decision: the acting pit manager is the token's subject; a second one approves (§5). */
export class DecisionDto extends WriteOptionsDto {
  @ApiProperty({ example: 'card exposed by the dealer before betting closed' }) @Matches(REASON_PATTERN) reason!: string;
  @ApiProperty({ example: 'pm-2' }) @Matches(/^[A-Za-z0-9_.:-]{1,64}$/) approverId!: string;
}
/** POST /shoes/{shoeId}/rounds/{roundId}/result-corrections: the corrected cards in dealing order. */
export class CorrectResultDto extends DecisionDto {
  @ApiProperty({ example: ['2S', 'KC', '3H', '6D', 'AS'] })
  @IsArray()
  @ArrayMinSize(4)
  @ArrayMaxSize(6)
  @IsCard({ each: true })
  cards!: string[];
}
