import { ApiProperty } from '@nestjs/swagger';
import { IsCard, CARD_JSON_PATTERN } from '../../common/validators';
import { FactWriteDto } from '../dto/evidence.dto';

/** POST /shoes/{shoeId}/commencement: the commencement card (docs/domain-rules.md §5.1). */
export class DrawCommencementCardDto extends FactWriteDto {
  @ApiProperty({ type: String, pattern: CARD_JSON_PATTERN, example: '7H' }) @IsCard() card!: string;
}
