import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { ID_PATTERN } from '@ledger/events';
import { WriteOptionsDto } from '../dto/write-options.dto';

/** POST /tables/{tableId}/shoes: a new shoe goes in (its settings are snapshotted from the table's configuration). */
export class OpenShoeDto extends WriteOptionsDto {
  @ApiProperty({ example: 'S-2026-11-29-001' }) @Matches(ID_PATTERN) shoeId!: string;
  @ApiProperty({ example: 'dealer-17' }) @Matches(ID_PATTERN) dealerId!: string;
}
