import { Inject, Injectable } from '@nestjs/common';
import type { DecisionStatus } from '@ledger/events';
import { PgEventStore } from '@ledger/event-store';
import { ApiError } from '../../kernel/api-error';
import { EVENT_STORE } from '../../kernel/tokens';
import { DECISION_EVENT_TYPES, foldDecisions, type DecisionView } from './decision-view';

/** Filters of {@link DecisionsQuery.list}. */
export interface DecisionFilter {
  readonly status?: DecisionStatus;
  readonly shoeId?: string;
  readonly tableId?: string;
  /** Only decisions requested by this pit manager. */
  readonly requestedBy?: string;
}

/**
 * Management decisions read from the event store itself (the four-eyes events of the shoe
 * streams), so an approval right after a request always finds it, and every answer is folded from
 * the events (docs/domain-rules.md §6).
 */
@Injectable()
export class DecisionsQuery {
  constructor(@Inject(EVENT_STORE) private readonly store: PgEventStore) {}

  /** Decisions in request order, filtered; a pending one past its expiry counts as EXPIRED. */
  async list(filter: DecisionFilter = {}): Promise<DecisionView[]> {
    const views = foldDecisions(await this.store.readByTypes(DECISION_EVENT_TYPES), new Date().toISOString());
    return views.filter(
      (v) => (!filter.status || v.status === filter.status) && (!filter.shoeId || v.shoeId === filter.shoeId) && (!filter.tableId || v.tableId === filter.tableId) && (!filter.requestedBy || v.requestedBy === filter.requestedBy),
    );
  }

  /** One decision. @throws ApiError 404 `DECISION.NOT_FOUND` */
  async get(decisionId: string): Promise<DecisionView> {
    const events = await this.store.readByTypes(DECISION_EVENT_TYPES, { field: 'decisionId', value: decisionId });
    const view = foldDecisions(events, new Date().toISOString()).find((v) => v.decisionId === decisionId);
    if (!view) throw new ApiError('DECISION.NOT_FOUND', `no decision ${decisionId}`, { decisionId });
    return view;
  }
}
