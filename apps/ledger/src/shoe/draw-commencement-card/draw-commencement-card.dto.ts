import { ApiProperty } from '@nestjs/swagger';
import { IsCard } from '../dto/validators';
import { WriteOptionsDto } from '../dto/write-options.dto';

/** POST /shoes/{shoeId}/commencement: the commencement card (docs/domain-rules.md §5.1). */
export class DrawCommencementCardDto extends WriteOptionsDto {
  @ApiProperty({ example: '7H' }) @IsCard() card!: string;
}
