import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { POSITIONS, type Position } from '@ledger/rules';
import { IsCard, CARD_JSON_PATTERN } from '../../../common/validators';
import { FactWriteDto } from '../../dto/evidence.dto';

/** POST /shoes/{shoeId}/rounds/{roundId}/cards: one card dealt to a position (docs/domain-rules.md §1, §2). */
export class DealCardDto extends FactWriteDto {
  @ApiProperty({ enum: POSITIONS }) @IsIn(POSITIONS as unknown as string[]) position!: Position;
  @ApiProperty({ type: String, pattern: CARD_JSON_PATTERN, example: '9S' }) @IsCard() card!: string;
}
