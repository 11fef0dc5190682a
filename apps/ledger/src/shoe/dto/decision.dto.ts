import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { ID_PATTERN } from '@ledger/events';
import { WriteOptionsDto } from './write-options.dto';
import { REASON_PATTERN } from './validators';

/**
 * A management decision (docs/domain-rules.md §6): the acting pit manager is the token's subject;
 * `approverId` names the second one, who approves. Body of a round void and a shoe void; a result
 * correction adds its cards.
 */
export class DecisionDto extends WriteOptionsDto {
  @ApiProperty({ example: 'card exposed by the dealer before betting closed' }) @Matches(REASON_PATTERN) reason!: string;
  @ApiProperty({ example: 'pm-2' }) @Matches(ID_PATTERN) approverId!: string;
}
