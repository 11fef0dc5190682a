import { ApiProperty } from '@nestjs/swagger';
import { Bool, Enum, Int, List, NStr, One, Str } from '../kernel/openapi-props';
import { VARIANTS } from '../kernel/response-enums';

/**
 * The response schemas of `GET /statistics/fairness` (docs/fairness.md). Classes only describe;
 * the service answers plain objects of these shapes. Probabilities are exact decimal-integer
 * fractions; counts expected, bands, X², p-values and levels are floats (docs/fairness.md §3).
 */

const Num = (description?: string) => ApiProperty({ type: Number, description });
const NNum = (description?: string) => ApiProperty({ type: Number, nullable: true, description });

const STATISTICS = ['OUTCOME', 'PAIRS', 'NATURALS', 'TIGER_PAIR', 'TIGER', 'PLAYER_FABULOUS_PAIR', 'BANKER_FABULOUS_PAIR', 'FABULOUS_4', 'CARD_RANKS'];
const METHODS = ['chi-squared', 'exact-binomial', 'none'];
const SCOPES = ['table', 'shoe', 'dealer'];

/** An exact fraction, decimal integer strings. */
export class FairnessFraction {
  @Str() numerator!: string;
  @Str() denominator!: string;
}

/** The count band of a category at the per-test level (for charts). */
export class FairnessBand {
  @Num() low!: number;
  @Num() high!: number;
}

/** One category of a statistic. */
export class FairnessCategory {
  @Str() category!: string;
  @Int() observed!: number;
  @One(() => FairnessFraction, 'exact expected probability (PAR engine or shoe composition)') probability!: FairnessFraction;
  @Num('rounds (or cards) × probability') expected!: number;
  @One(() => FairnessBand) band!: FairnessBand;
}

/** A goodness-of-fit test's result. */
export class FairnessTest {
  @Enum(METHODS) method!: string;
  @Int('rounds, or dealt cards for CARD_RANKS') n!: number;
  @NNum("Pearson's X² (null: a category the expectations forbid was observed)") statistic!: number | null;
  @Int() degreesOfFreedom!: number;
  @Num() pValue!: number;
}

/** One statistic in one scope. */
export class FairnessStatisticReport {
  @Enum(STATISTICS) statistic!: string;
  @List(() => FairnessCategory) categories!: FairnessCategory[];
  @One(() => FairnessTest) test!: FairnessTest;
  @Num('the per-test level the p-value is judged at') alpha!: number;
  @Bool('p-value < alpha') alert!: boolean;
}

/** A scope: the table's day, a shoe or a dealer's day. */
export class FairnessScopeReport {
  @Enum(SCOPES) kind!: string;
  @NStr() shoeId!: string | null;
  @NStr() dealerId!: string | null;
  @Int() rounds!: number;
  @List(() => FairnessStatisticReport) statistics!: FairnessStatisticReport[];
}

/** A failed test: the details a `STATISTICS.OUT_OF_BOUNDS` significant event carries. */
export class FairnessFailure {
  @Enum(SCOPES) kind!: string;
  @NStr() shoeId!: string | null;
  @NStr() dealerId!: string | null;
  @Enum(STATISTICS) statistic!: string;
  @Int() rounds!: number;
  @NNum() chiSquared!: number | null;
  @Int() degreesOfFreedom!: number;
  @Enum(METHODS) method!: string;
  @Num() pValue!: number;
  @Num() alpha!: number;
}

/** `GET /statistics/fairness` (docs/fairness.md). */
export class FairnessResponse {
  @Str() tableId!: string;
  @Str() gamingDay!: string;
  @Enum(VARIANTS) variant!: string;
  @Int() decks!: number;
  @One(() => FairnessFraction, 'FAIRNESS_ALERT_CONFIDENCE') confidence!: FairnessFraction;
  @Num('stated false-alarm rate per table per gaming day, 1 − confidence') falseAlarmRatePerTableDay!: number;
  @Num('the per-test level: (1 − confidence) / (3 scopes × statistics × 32 looks)') alpha!: number;
  @Bool('any test failed') alert!: boolean;
  @List(() => FairnessFailure) failures!: FairnessFailure[];
  @List(() => FairnessScopeReport, 'the selection first, then (for a whole day) each shoe and each dealer') scopes!: FairnessScopeReport[];
}
