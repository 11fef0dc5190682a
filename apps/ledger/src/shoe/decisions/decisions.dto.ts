import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { ID_PATTERN } from '@ledger/events';
import { FactWriteDto } from '../dto/evidence.dto';
import { REASON_PATTERN } from '../../common/validators';

/** Body of `POST /decisions/{decisionId}/approve`: the approver is the token's subject; an optional remark. */
export class ApproveDecisionDto extends FactWriteDto {
  @ApiPropertyOptional({ example: 'video reviewed: camera 3, 21:04:10' }) @IsOptional() @Matches(REASON_PATTERN) reason?: string;
}

/** Body of `POST /decisions/{decisionId}/reject`: why, 3..500 characters. */
export class RejectDecisionDto extends FactWriteDto {
  @ApiProperty({ example: 'the video shows the card was not exposed' }) @Matches(REASON_PATTERN) reason!: string;
}

/** Query of `GET /decisions`. */
export class ListDecisionsQuery {
  @ApiPropertyOptional({ enum: ['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'EXPIRED'] })
  @IsOptional()
  @IsIn(['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'EXPIRED'])
  status?: 'PENDING_APPROVAL' | 'APPROVED' | 'REJECTED' | 'EXPIRED';

  @ApiPropertyOptional() @IsOptional() @Matches(ID_PATTERN) shoeId?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(ID_PATTERN) tableId?: string;
  @ApiPropertyOptional({ description: 'only the decisions this pit manager requested' }) @IsOptional() @Matches(ID_PATTERN) requestedBy?: string;
}
