import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, ValidateIf } from 'class-validator';
import { IsCard, CARD_JSON_PATTERN } from '../../../common/validators';
import { FactWriteDto } from '../../dto/evidence.dto';

/** POST /shoes/{shoeId}/dropped-cards (docs/domain-rules.md §5.5). */
export class DropCardDto extends FactWriteDto {
  @ApiProperty({ type: String, pattern: CARD_JSON_PATTERN, example: 'KD', nullable: true }) @ValidateIf((o) => o.card !== null) @IsCard() card!: string | null;
  @ApiProperty() @IsBoolean() exposedBeforeLeavingView!: boolean;
  @ApiPropertyOptional({ enum: ['SHUFFLE', 'SCOOPING'] }) @IsOptional() @IsIn(['SHUFFLE', 'SCOOPING']) phase?: 'SHUFFLE' | 'SCOOPING';
}
