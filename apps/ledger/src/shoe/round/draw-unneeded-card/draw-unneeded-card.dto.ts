import { ApiProperty } from '@nestjs/swagger';
import { IsCard } from '../../../common/validators';
import { FactWriteDto } from '../../dto/evidence.dto';

/** POST /shoes/{shoeId}/rounds/{roundId}/unneeded-cards (docs/domain-rules.md §5.3). */
export class DrawUnneededCardDto extends FactWriteDto {
  @ApiProperty({ example: '4D' }) @IsCard() card!: string;
}
