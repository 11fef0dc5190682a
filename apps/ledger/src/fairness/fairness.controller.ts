import { Controller, Get, Query, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../kernel/auth/roles.decorator';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { FairnessQuery } from './fairness.dto';
import { FairnessResponse } from './fairness.responses';
import { FairnessService } from './fairness.service';

/**
 * Fairness statistics against the exact PAR sheet (docs/fairness.md; COMAR 36.05.02.17.F, UKGC
 * RTS 17A): a table's gaming day, its shoes and dealers, each statistic's observed and expected
 * frequencies with bands, its goodness-of-fit test and the alert rule's verdict. Read roles; every
 * call recorded in `query_log`.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class FairnessController {
  constructor(private readonly fairness: FairnessService) {}

  @Get('statistics/fairness')
  @ApiOperation({ summary: "Fairness statistics of a table's gaming day against the exact PAR sheet: observed vs expected per category, goodness-of-fit tests, p-values, the alert verdict" })
  @ApiOkResponse({ type: FairnessResponse })
  fairnessStatistics(@Query() q: FairnessQuery) {
    return this.fairness.report(q);
  }
}
