import { eventDataProblem } from '@ledger/event-store';
import { smallShoe } from '../../libs/projections/src/testing/small-shoe.fixture';

describe('eventDataProblem: the data of an event against its type’s schema (docs/guarantees.md §10)', () => {
  it('admits every event of a whole small shoe', () => {
    const events = smallShoe({ shoeId: 'edv-1', tableId: 'T-EDV-1' }).events.map((e) => JSON.parse(JSON.stringify(e)));
    expect(events.map((e) => [e.type, eventDataProblem(e.type, e.data)]).filter(([, p]) => p !== null)).toEqual([]);
  });

  it('names the first problem of a raise whose cause is null, of data missing a field, and of an unknown type', () => {
    const raise = { significantEventId: '00000000-0000-4000-8000-000000000000', code: 'ROUND.VOIDED', severity: 'medium', cause: null, actor: 'x', details: {} };
    expect(eventDataProblem('SignificantEventRaised', raise)).toMatch(/^\/cause /);
    expect(eventDataProblem('ClockAttested', {})).toMatch(/required/);
    expect(eventDataProblem('NoSuchEvent', {})).toBe('NoSuchEvent is not a ledger event type');
  });
});
