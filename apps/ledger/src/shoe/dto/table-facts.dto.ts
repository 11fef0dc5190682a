import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, Matches, ValidateIf } from 'class-validator';
import { POSITIONS } from '@ledger/rules';
import { WriteOptionsDto } from './common.dto';
import { IsCard, REASON_PATTERN } from './validators';

const ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/** POST /tables/{tableId}/shoes: a new shoe goes in (its settings are snapshotted from the table's configuration). */
export class OpenShoeDto extends WriteOptionsDto {
  @ApiProperty({ example: 'S-2026-11-29-001' }) @Matches(ID) shoeId!: string;
  @ApiProperty({ example: 'dealer-17' }) @Matches(ID) dealerId!: string;
}
/** POST /shoes/{shoeId}/commencement: the commencement card (§5.1). */
export class CommencementDto extends WriteOptionsDto {
  @ApiProperty({ example: '7H' }) @IsCard() card!: string;
}
/** POST /shoes/{shoeId}/commencement/corrections (pit manager). */
export class CorrectCommencementDto extends WriteOptionsDto {
  @ApiProperty({ example: '5H' }) @IsCard() card!: string;
  @ApiProperty({ example: 'wrong card read by the scanner' }) @Matches(REASON_PATTERN) reason!: string;
}
/** POST /shoes/{shoeId}/burns: one burned card, `null` if burned face down. */
export class BurnCardDto extends WriteOptionsDto {
  @ApiProperty({ example: '2C', nullable: true }) @ValidateIf((o) => o.card !== null) @IsCard() card!: string | null;
}
/** POST /shoes/{shoeId}/rounds: open the next round (bets open). */
export class OpenRoundDto extends WriteOptionsDto {
  @ApiProperty({ example: 'R-0001' }) @Matches(ID) roundId!: string;
}
/** POST /shoes/{shoeId}/rounds/{roundId}/cards: one card dealt to a position. */
export class DealCardDto extends WriteOptionsDto {
  @ApiProperty({ enum: POSITIONS }) @IsIn(POSITIONS as unknown as string[]) position!: (typeof POSITIONS)[number];
  @ApiProperty({ example: '9S' }) @IsCard() card!: string;
}
/** POST /shoes/{shoeId}/rounds/{roundId}/unneeded-cards (§5.3). */
export class UnneededCardDto extends WriteOptionsDto {
  @ApiProperty({ example: '4D' }) @IsCard() card!: string;
}
/** POST /shoes/{shoeId}/exposed-cards (§5.3). */
export class ExposeCardDto extends WriteOptionsDto {
  @ApiProperty({ example: 'QS' }) @IsCard() card!: string;
  @ApiPropertyOptional({ enum: ['SHUFFLE'] }) @IsOptional() @IsIn(['SHUFFLE']) phase?: 'SHUFFLE';
}
/** POST /shoes/{shoeId}/dropped-cards (§5.5). */
export class DropCardDto extends WriteOptionsDto {
  @ApiProperty({ example: 'KD', nullable: true }) @ValidateIf((o) => o.card !== null) @IsCard() card!: string | null;
  @ApiProperty() @IsBoolean() exposedBeforeLeavingView!: boolean;
  @ApiPropertyOptional({ enum: ['SHUFFLE', 'SCOOPING'] }) @IsOptional() @IsIn(['SHUFFLE', 'SCOOPING']) phase?: 'SHUFFLE' | 'SCOOPING';
}
/** POST /shoes/{shoeId}/dealer. */
export class ChangeDealerDto extends WriteOptionsDto {
  @ApiProperty({ example: 'dealer-18' }) @Matches(ID) dealerId!: string;
}
/** Body of writes that carry nothing else (close betting, cut card, close shoe). */
export class EmptyWriteDto extends WriteOptionsDto {}
