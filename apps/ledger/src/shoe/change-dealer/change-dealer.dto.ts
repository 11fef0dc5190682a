import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { ID_PATTERN } from '@ledger/events';
import { WriteOptionsDto } from '../dto/write-options.dto';

/** POST /shoes/{shoeId}/dealer: the dealer who takes over. */
export class ChangeDealerDto extends WriteOptionsDto {
  @ApiProperty({ example: 'dealer-18' }) @Matches(ID_PATTERN) dealerId!: string;
}
