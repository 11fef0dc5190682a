import { ApiProperty } from '@nestjs/swagger';
import { ReportHeaderSchema } from '../kernel/report-header.dto';
import { Bool, Enum, Int, List, NInt, NStr, NTime, One, Str } from '../kernel/openapi-props';

/** A nullable string of a given pattern (exact decimal text). */
const Pattern = (pattern: string, description: string) => ApiProperty({ type: String, nullable: true, pattern, description });

/** The outlier test of a dealer on one metric (docs/reports.md §6). */
export class OutlierTestView {
  @Enum(['VOID_RATE', 'REFUSAL_RATE']) metric!: string;
  @Int('voided rounds (VOID_RATE) or rounds with a tableau refusal (REFUSAL_RATE) of the dealer') count!: number;
  @Int() rounds!: number;
  @Int('the same count over every other dealer of the report') peerCount!: number;
  @Int() peerRounds!: number;
  @Pattern('^\\d+\\.\\d{4}$', 'count/rounds, 4 decimals half up') rate!: string | null;
  @Pattern('^\\d+\\.\\d{4}$', 'peerCount/peerRounds, 4 decimals half up') peerRate!: string | null;
  @Pattern('^-?\\d+\\.\\d{2}$', 'two-proportion z of the dealer against the peers, truncated to 2 decimals; null when undefined') z!: string | null;
  @Bool('z ≥ 3 with at least minRounds rounds on both sides') flagged!: boolean;
  @NStr('why no flag could be raised (small sample, no variation)') note!: string | null;
}

/** RoundOpened → RoundResulted in ms of table time (occurredAt): lower median and mean (half up). */
export class RoundTimeView {
  @NInt() median!: number | null;
  @NInt() mean!: number | null;
}

/** One dealer, table or shift (docs/reports.md §6). */
export class StaffRowView {
  @NStr('groupBy dealer and shift') dealerId!: string | null;
  @NStr('groupBy table and shift') tableId!: string | null;
  @NStr('groupBy shift') shoeId!: string | null;
  @NInt('groupBy shift: stream version of the ShoeOpened or DealerChanged that began it') shiftStartVersion!: number | null;
  @NTime('groupBy shift') shiftStartedAt!: string | null;
  @NTime('groupBy shift: the next DealerChanged or the shoe close/void; null while it lasts') shiftEndedAt!: string | null;
  @Int('rounds opened') rounds!: number;
  @Int() roundsResulted!: number;
  @Int('rounds voided, every cause') voids!: number;
  @Int('result corrections') corrections!: number;
  @Int() exposedCards!: number;
  @Int() droppedCards!: number;
  @Int() unneededCards!: number;
  @Int('dealt cards the tableau refused (TABLEAU.VIOLATION in the rejection log)') refusals!: number;
  @Int() roundsWithRefusal!: number;
  @One(() => RoundTimeView) roundTimeMs!: RoundTimeView;
  @Pattern('^\\d+\\.\\d{4}$', 'voids/rounds, 4 decimals half up') voidRate!: string | null;
  @Pattern('^\\d+\\.\\d{4}$', 'roundsWithRefusal/rounds, 4 decimals half up') refusalRate!: string | null;
  @List(() => OutlierTestView, 'groupBy dealer: VOID_RATE and REFUSAL_RATE against the other dealers; else empty') tests!: OutlierTestView[];
  @Bool() flagged!: boolean;
}

/** One pit manager (docs/reports.md §6). */
export class PitManagerRowView {
  @Str() managerId!: string;
  @Int() decisionsRequested!: number;
  @Int() decisionsApproved!: number;
  @Int() decisionsRejected!: number;
  @Int('their requests that expired undecided') decisionsExpired!: number;
  @Int('round voids they requested (acting manager)') voidsRequested!: number;
  @Int() voidsApproved!: number;
  @Int() correctionsRequested!: number;
  @Int() correctionsApproved!: number;
  @Int() shoeVoidsRequested!: number;
  @Int() shoeVoidsApproved!: number;
}

/** The flag rule the report applied (docs/reports.md §6). */
export class FlagRuleView {
  @Str('two-proportion z-test of the dealer against the pool of the other dealers') test!: string;
  @Str('z at or above which a dealer is flagged') zThreshold!: string;
  @Int('fewest rounds of the dealer and of the pool for a flag') minRounds!: number;
}

/** `GET /statistics/staff` (docs/reports.md §6). */
export class StaffStatisticsReport {
  @One(() => ReportHeaderSchema) header!: ReportHeaderSchema;
  @Enum(['dealer', 'pitManager', 'table', 'shift']) groupBy!: string;
  @One(() => FlagRuleView) flagRule!: FlagRuleView;
  @List(() => StaffRowView, 'groupBy dealer, table or shift; empty for pitManager') items!: StaffRowView[];
  @List(() => PitManagerRowView, 'groupBy pitManager; empty otherwise') pitManagers!: PitManagerRowView[];
}
