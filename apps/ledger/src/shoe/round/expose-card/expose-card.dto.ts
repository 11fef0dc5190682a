import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsCard, CARD_JSON_PATTERN } from '../../../common/validators';
import { FactWriteDto } from '../../dto/evidence.dto';

/** POST /shoes/{shoeId}/exposed-cards (docs/domain-rules.md §5.3). */
export class ExposeCardDto extends FactWriteDto {
  @ApiProperty({ type: String, pattern: CARD_JSON_PATTERN, example: 'QS' }) @IsCard() card!: string;
  @ApiPropertyOptional({ enum: ['SHUFFLE'] }) @IsOptional() @IsIn(['SHUFFLE']) phase?: 'SHUFFLE';
}
