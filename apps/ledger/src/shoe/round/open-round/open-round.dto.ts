import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { ID_PATTERN } from '@ledger/events';
import { WriteOptionsDto } from '../../dto/write-options.dto';

/** POST /shoes/{shoeId}/rounds: open the next round (bets open). */
export class OpenRoundDto extends WriteOptionsDto {
  @ApiProperty({ example: 'R-0001' }) @Matches(ID_PATTERN) roundId!: string;
}
