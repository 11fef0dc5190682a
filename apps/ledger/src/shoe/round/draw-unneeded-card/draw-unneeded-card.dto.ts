import { ApiProperty } from '@nestjs/swagger';
import { IsCard, CARD_JSON_PATTERN } from '../../../common/validators';
import { FactWriteDto } from '../../dto/evidence.dto';

/** POST /shoes/{shoeId}/rounds/{roundId}/unneeded-cards (docs/domain-rules.md §5.3). */
export class DrawUnneededCardDto extends FactWriteDto {
  @ApiProperty({ type: String, pattern: CARD_JSON_PATTERN, example: '4D' }) @IsCard() card!: string;
}
