import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { IsCard, REASON_PATTERN, CARD_JSON_PATTERN } from '../../common/validators';
import { FactWriteDto } from '../dto/evidence.dto';

/** POST /shoes/{shoeId}/commencement/corrections (pit manager, docs/domain-rules.md §5.1). */
export class CorrectCommencementDto extends FactWriteDto {
  @ApiProperty({ type: String, pattern: CARD_JSON_PATTERN, example: '5H' }) @IsCard() card!: string;
  @ApiProperty({ example: 'wrong card read by the scanner' }) @Matches(REASON_PATTERN) reason!: string;
}
