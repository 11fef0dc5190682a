import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { DecisionDto } from '../../dto/decision.dto';
import { IsCard, CARD_JSON_PATTERN } from '../../../common/validators';

/** POST /shoes/{shoeId}/rounds/{roundId}/result-corrections: the corrected cards in dealing order (docs/domain-rules.md §5.4). */
export class CorrectResultDto extends DecisionDto {
  @ApiProperty({ type: 'array', items: { type: 'string', pattern: CARD_JSON_PATTERN }, minItems: 4, maxItems: 6, example: ['2S', 'KC', '3H', '6D', 'AS'] })
  @IsArray()
  @ArrayMinSize(4)
  @ArrayMaxSize(6)
  @IsCard({ each: true })
  cards!: string[];
}
