import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsObject, IsString, Matches, Max, Min, ValidateNested, ArrayMinSize, IsArray } from 'class-validator';
import { VARIANTS } from '@ledger/rules';

/** One table's configuration, as `config/tables.json` holds it. Amounts: minor units, decimal strings. */
export class TableConfigDto {
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/) tableId!: string;
  @IsString() name!: string;
  @IsIn(VARIANTS as unknown as string[]) variant!: (typeof VARIANTS)[number];
  @IsInt() @Min(1) @Max(16) decks!: number;
  @IsBoolean() virtualTable!: boolean;
  @Matches(/^[a-z0-9-]+@\d+$/) paytableRef!: string;
  @IsBoolean() pairBetsRequireMainBet!: boolean;
  @Matches(/^[A-Z]{3}$/) currency!: string;
  /** bet code → { min, max } minor units as decimal strings. */
  @IsObject() limits!: Record<string, { min: string; max: string }>;
}

/** The whole tables file: `{ "tables": [...] }`. */
export class TablesFileDto {
  @IsArray() @ArrayMinSize(1) @ValidateNested({ each: true }) @Type(() => TableConfigDto) tables!: TableConfigDto[];
}
