import { ALL_PROJECTIONS } from '@ledger/read-model';
import type { Projection } from './projection';
import { checkProjectionSet } from './projection-set';

const named = (name: string) => ALL_PROJECTIONS.find((p) => p.name === name)!;

describe('checkProjectionSet (the dependencies between projections, checked at start)', () => {
  it('accepts every projection, in any order, with what the applier and the analytics need', () => {
    const required = { shoe_state: 'the applier', hand_outcomes: 'the analytics records' };
    expect(() => checkProjectionSet(ALL_PROJECTIONS, required)).not.toThrow();
    expect(() => checkProjectionSet([...ALL_PROJECTIONS].reverse(), required)).not.toThrow();
  });

  it('declares every table a projection reads of another: reconciliation, bets and roads read hand_outcomes; nobody reads reconciliation', () => {
    const reads = Object.fromEntries(ALL_PROJECTIONS.map((p) => [p.name, [...(p.reads ?? [])].sort()]));
    expect(reads).toEqual({
      audit_events: [],
      shoe_state: [],
      reconciliation: ['bet_settlements', 'hand_outcomes'],
      hand_outcomes: ['shoe_state'],
      bet_settlements: ['hand_outcome_revisions', 'hand_outcomes', 'shoe_state'],
      roads: ['hand_outcomes'],
      significant_events: [],
    });
  });

  it('refuses a projection whose declared reads no projection of the list writes', () => {
    const withoutBets = ALL_PROJECTIONS.filter((p) => p.name !== 'bet_settlements');
    expect(() => checkProjectionSet(withoutBets)).toThrow(expect.objectContaining({ code: 'PROJECTION.BAD_CONFIG', message: expect.stringMatching(/reconciliation reads table bet_settlements/) }));
  });

  it('refuses a table owned twice, a projection listed twice, a projection reading its own table, and a missing required table', () => {
    const twin: Projection = { ...named('roads'), name: 'audit_events' };
    expect(() => checkProjectionSet([named('roads'), twin])).toThrow(/table roads is owned by both/);
    expect(() => checkProjectionSet([named('audit_events'), named('audit_events')])).toThrow(/listed twice/);
    expect(() => checkProjectionSet([{ ...named('audit_events'), reads: ['audit_events'] }])).toThrow(/reads its own table/);
    expect(() => checkProjectionSet([named('audit_events')], { shoe_state: 'the applier' })).toThrow(/the applier needs table shoe_state/);
  });
});
