import { ApiProperty } from '@nestjs/swagger';
import { IsCard } from '../../dto/validators';
import { WriteOptionsDto } from '../../dto/write-options.dto';

/** POST /shoes/{shoeId}/rounds/{roundId}/unneeded-cards (docs/domain-rules.md §5.3). */
export class DrawUnneededCardDto extends WriteOptionsDto {
  @ApiProperty({ example: '4D' }) @IsCard() card!: string;
}
