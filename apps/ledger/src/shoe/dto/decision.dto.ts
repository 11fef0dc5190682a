import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { FactWriteDto } from './evidence.dto';
import { REASON_PATTERN } from '../../common/validators';

/**
 * A management decision requested by a pit manager (docs/domain-rules.md §6): the requester is the
 * token's subject; a second pit manager approves with their own token
 * (`POST /decisions/{decisionId}/approve`). There is no approver field: an `approverId` in the body
 * is refused (400). Body of a round void and a shoe void; a result correction adds its cards.
 */
export class DecisionDto extends FactWriteDto {
  @ApiProperty({ example: 'card exposed by the dealer before betting closed' }) @Matches(REASON_PATTERN) reason!: string;
}
