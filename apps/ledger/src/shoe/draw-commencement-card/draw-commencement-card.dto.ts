import { ApiProperty } from '@nestjs/swagger';
import { IsCard } from '../../common/validators';
import { FactWriteDto } from '../dto/evidence.dto';

/** POST /shoes/{shoeId}/commencement: the commencement card (docs/domain-rules.md §5.1). */
export class DrawCommencementCardDto extends FactWriteDto {
  @ApiProperty({ example: '7H' }) @IsCard() card!: string;
}
