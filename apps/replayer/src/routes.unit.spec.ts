import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateShoeScript, route, SimTable } from '@ledger/simulator';
import { TableLogLine, toTableLog } from '@ledger/table-log';
import { apiWriteOf, DEFAULT_REPLAY_ACTORS } from './routes';

const tables: SimTable[] = JSON.parse(readFileSync(resolve(__dirname, '../../../config/tables.json'), 'utf8')).tables;

describe('apiWriteOf (a table-log line as an HTTP write)', () => {
  it.each(tables.map((t) => [t.tableId]))(
    'Given a busy simulated shoe of %s saved as a log, Then every line is sent exactly as the simulator runner sends its action',
    (tableId) => {
      const script = generateShoeScript(tables.find((t) => t.tableId === tableId)!, `routes-${tableId}`, {
        shoeId: `S-${tableId}`,
        dealerId: 'dealer-1',
        exposedCardChance: 0.05,
        droppedCardChance: 0.05,
        unneededCardChance: 0.1,
        managementVoidChance: 0.05,
        correctionChance: 0.05,
      });
      const lines = toTableLog(script);
      const actors = { ...DEFAULT_REPLAY_ACTORS, approver: 'pm-2' };
      const s = `/shoes/${encodeURIComponent(script.shoeId)}`;
      script.actions.forEach((a, i) => {
        const [role, sub, path, body] = route(a, s, actors);
        expect(apiWriteOf(lines[i])).toEqual({ kind: a.kind, method: 'POST', role, sub, path, body });
      });
    },
  );

  it('Given occurredAt and actor, Then the time goes in the body and the actor becomes the token subject', () => {
    const w = apiWriteOf({ kind: 'deal', shoeId: 'S-1', roundId: 'R-1', position: 'P1', card: '9S', occurredAt: '2026-11-29T12:00:00Z', actor: 'dev-9' });
    expect(w).toEqual({
      kind: 'deal',
      method: 'POST',
      role: 'table-device',
      sub: 'dev-9',
      path: '/shoes/S-1/rounds/R-1/cards',
      body: { position: 'P1', card: '9S', occurredAt: '2026-11-29T12:00:00Z' },
    });
  });

  it.each<[TableLogLine, Pick<ReturnType<typeof apiWriteOf>, 'role' | 'path' | 'body'>]>([
    [
      { kind: 'bet', shoeId: 'S-1', roundId: 'R-1', betId: 'b1', accountId: 'a1', betCode: 'TIE', stake: '500', currency: 'EUR' },
      { role: 'betting-platform', path: '/shoes/S-1/rounds/R-1/bets', body: { bet: { betId: 'b1', accountId: 'a1', betCode: 'TIE', stake: '500', currency: 'EUR' } } },
    ],
    [{ kind: 'changeDealer', shoeId: 'S-1', dealerId: 'd2' }, { role: 'table-device', path: '/shoes/S-1/dealer', body: { dealerId: 'd2' } }],
    [{ kind: 'expose', shoeId: 'S-1', card: 'KS', phase: 'SHUFFLE' }, { role: 'table-device', path: '/shoes/S-1/exposed-cards', body: { card: 'KS', phase: 'SHUFFLE' } }],
    [
      { kind: 'drop', shoeId: 'S-1', card: null, exposedBeforeLeavingView: true, phase: 'SCOOPING' },
      { role: 'table-device', path: '/shoes/S-1/dropped-cards', body: { card: null, exposedBeforeLeavingView: true, phase: 'SCOOPING' } },
    ],
    [{ kind: 'voidShoe', shoeId: 'S-1', reason: 'tampered shoe', approverId: 'pm-2' }, { role: 'pit-manager', path: '/shoes/S-1/void', body: { reason: 'tampered shoe', approverId: 'pm-2' } }],
    [
      { kind: 'correctCommencement', shoeId: 'S-1', card: '5H', reason: 'scanner misread' },
      { role: 'pit-manager', path: '/shoes/S-1/commencement/corrections', body: { card: '5H', reason: 'scanner misread' } },
    ],
  ])('Given a %j line, Then it goes to its route with its role', (line, expected) => {
    expect(apiWriteOf(line)).toMatchObject(expected);
  });

  it('Given a line without actor, Then the default of its role is the subject', () => {
    const actors = { device: 'd', platform: 'p', manager: 'm' };
    expect(apiWriteOf({ kind: 'cutCard', shoeId: 'S' }, actors).sub).toBe('d');
    expect(apiWriteOf({ kind: 'bets', shoeId: 'S', roundId: 'R', bets: [{ betId: 'b', accountId: 'a', betCode: 'TIE', stake: '1', currency: 'EUR' }] }, actors).sub).toBe('p');
    expect(apiWriteOf({ kind: 'voidShoe', shoeId: 'S', reason: 'why not', approverId: 'x' }, actors).sub).toBe('m');
  });
});
