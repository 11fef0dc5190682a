import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { DecisionDto } from '../../dto/decision.dto';
import { IsCard } from '../../../common/validators';

/** POST /shoes/{shoeId}/rounds/{roundId}/result-corrections: the corrected cards in dealing order (docs/domain-rules.md §5.4). */
export class CorrectResultDto extends DecisionDto {
  @ApiProperty({ example: ['2S', 'KC', '3H', '6D', 'AS'] })
  @IsArray()
  @ArrayMinSize(4)
  @ArrayMaxSize(6)
  @IsCard({ each: true })
  cards!: string[];
}
