import { ApiProperty } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { IsCard, CARD_JSON_PATTERN } from '../../common/validators';
import { FactWriteDto } from '../dto/evidence.dto';

/** POST /shoes/{shoeId}/burns: one burned card, `null` if burned face down (docs/domain-rules.md §5.1). */
export class BurnCardDto extends FactWriteDto {
  @ApiProperty({ type: String, pattern: CARD_JSON_PATTERN, example: '2C', nullable: true }) @ValidateIf((o) => o.card !== null) @IsCard() card!: string | null;
}
