import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, Matches, ValidateNested } from 'class-validator';
import { ID_PATTERN } from '@ledger/events';
import { WriteOptionsDto } from '../../dto/write-options.dto';
import { IsMinorUnits, MINOR_UNITS_JSON_PATTERN } from '../../../common/validators';

const BET_CODE = /^[A-Z_0-9]{1,32}$/;
const CURRENCY = /^[A-Z]{3}$/;

/** One bet from the betting platform. `stake` in minor units (docs/domain-rules.md §4). */
export class BetDto {
  @ApiProperty({ type: String, pattern: ID_PATTERN.source, example: 'B-000001' }) @Matches(ID_PATTERN) betId!: string;
  @ApiProperty({ type: String, pattern: ID_PATTERN.source, example: 'acct-42' }) @Matches(ID_PATTERN) accountId!: string;
  @ApiProperty({ type: String, pattern: BET_CODE.source, example: 'BANKER' }) @Matches(BET_CODE) betCode!: string;
  @ApiProperty({
    type: String,
    pattern: MINOR_UNITS_JSON_PATTERN,
    example: '2500',
    description: 'integer minor units of `currency` as a decimal string (exact beyond 2^53); the API also takes a safe JSON integer, which the contract does not promise',
  })
  @IsMinorUnits()
  stake!: string | number;
  @ApiProperty({ type: String, pattern: CURRENCY.source, example: 'EUR' }) @Matches(CURRENCY) currency!: string;
}
/** POST /shoes/{shoeId}/rounds/{roundId}/bets: a single bet. */
export class PlaceBetDto extends WriteOptionsDto {
  // @IsObject: @ValidateNested alone lets a missing, null or array `bet` through (the handler then failed with a 500).
  @ApiProperty({ type: BetDto }) @IsObject() @ValidateNested() @Type(() => BetDto) bet!: BetDto;
}
const BET_KEYS = ['betId', 'accountId', 'betCode', 'stake', 'currency'] as const;
const MINOR_UNITS = /^\d{1,30}$/;

/**
 * Whether `b` is a bet {@link BetDto}'s decorators accept: a plain object with exactly its five
 * fields, each passing the same rule (`@Matches` on strings, `@IsMinorUnits`). False means "let
 * class-validator decide", never "refused".
 */
export function isPlainValidBet(b: unknown): b is BetDto {
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
  const proto = Object.getPrototypeOf(b);
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(b);
  if (keys.length !== BET_KEYS.length) return false;
  const r = b as Record<string, unknown>;
  for (const k of BET_KEYS) if (!Object.prototype.hasOwnProperty.call(r, k)) return false;
  const stake = r.stake;
  return (
    typeof r.betId === 'string' &&
    ID_PATTERN.test(r.betId) &&
    typeof r.accountId === 'string' &&
    ID_PATTERN.test(r.accountId) &&
    typeof r.betCode === 'string' &&
    BET_CODE.test(r.betCode) &&
    typeof r.currency === 'string' &&
    CURRENCY.test(r.currency) &&
    ((typeof stake === 'string' && MINOR_UNITS.test(stake)) || (typeof stake === 'number' && Number.isSafeInteger(stake) && stake >= 0))
  );
}

/** POST /shoes/{shoeId}/rounds/{roundId}/bets/batch: up to 10,000 bets, accepted all or none. */
export class PlaceBetBatchDto extends WriteOptionsDto {
  /** The body's fields besides `bets`, validated by class-validator on the fast path. */
  static readonly restType = WriteOptionsDto;

  /**
   * The fast path of `LedgerValidationPipe` (`apps/ledger/src/common/validation.pipe.ts`): when the
   * body is an object whose `bets` is an array of 1..10,000 bets {@link isPlainValidBet} accepts,
   * the bets need no class-validator pass; the rest of the body still gets one. Else null.
   */
  static fastValidate(value: unknown): { rest: Record<string, unknown>; finish: (rest: object) => object } | null {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const { bets, ...rest } = value as Record<string, unknown>;
    if (!Array.isArray(bets) || bets.length < 1 || bets.length > 10000) return null;
    for (const b of bets) if (!isPlainValidBet(b)) return null;
    return { rest, finish: (options) => Object.assign(new PlaceBetBatchDto(), options, { bets: bets as BetDto[] }) };
  }

  @ApiProperty({ type: [BetDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10000)
  // @IsObject each: @ValidateNested lets an array or null element through (`{"bets":[[]]}` was a 500).
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => BetDto)
  bets!: BetDto[];
}
