import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { approvalRoute, generateShoeScript, route, SimTable } from '@ledger/simulator';
import { TableLogLine, toTableLog } from '@ledger/table-log';
import { apiWriteOf, approvalWriteOf, approverOf, DEFAULT_REPLAY_ACTORS } from './routes';

const tables: SimTable[] = JSON.parse(readFileSync(resolve(__dirname, '../../../config/tables.json'), 'utf8')).tables;

describe('apiWriteOf (a table-log line as an HTTP write)', () => {
  it.each(tables.map((t) => [t.tableId]))('Given a busy simulated shoe of %s saved as a log, Then every line is sent exactly as the simulator runner sends its action', (tableId) => {
    const script = generateShoeScript(
      tables.find((t) => t.tableId === tableId)!,
      `routes-${tableId}`,
      {
        shoeId: `S-${tableId}`,
        dealerId: 'dealer-1',
        exposedCardChance: 0.05,
        droppedCardChance: 0.05,
        unneededCardChance: 0.1,
        managementVoidChance: 0.05,
        correctionChance: 0.05,
      },
    );
    const lines = toTableLog(script);
    const actors = DEFAULT_REPLAY_ACTORS;
    const s = `/shoes/${encodeURIComponent(script.shoeId)}`;
    let decisions = 0;
    script.actions.forEach((a, i) => {
      const [role, sub, path, body] = route(a, s, actors);
      expect(apiWriteOf(lines[i])).toEqual({ kind: a.kind, method: 'POST', role, sub, path, body });
      // the second step, as the runner sends it: the approval by the second pit manager
      const approval = approvalWriteOf(lines[i], `d-${i}`);
      if (a.kind === 'voidRound' || a.kind === 'correctResult') {
        decisions++;
        const [aRole, aSub, aPath, aBody] = approvalRoute(`d-${i}`, actors);
        expect(approval).toEqual({ kind: 'approveDecision', method: 'POST', role: aRole, sub: aSub, path: aPath, body: aBody });
      } else expect(approval).toBeNull();
    });
    expect(decisions).toBeGreaterThan(0);
  });

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
    [
      { kind: 'changeDealer', shoeId: 'S-1', dealerId: 'd2' },
      { role: 'table-device', path: '/shoes/S-1/dealer', body: { dealerId: 'd2' } },
    ],
    [
      { kind: 'expose', shoeId: 'S-1', card: 'KS', phase: 'SHUFFLE' },
      { role: 'table-device', path: '/shoes/S-1/exposed-cards', body: { card: 'KS', phase: 'SHUFFLE' } },
    ],
    [
      { kind: 'drop', shoeId: 'S-1', card: null, exposedBeforeLeavingView: true, phase: 'SCOOPING' },
      { role: 'table-device', path: '/shoes/S-1/dropped-cards', body: { card: null, exposedBeforeLeavingView: true, phase: 'SCOOPING' } },
    ],
    [
      { kind: 'voidShoe', shoeId: 'S-1', reason: 'tampered shoe', approverId: 'pm-2' },
      { role: 'pit-manager', path: '/shoes/S-1/void', body: { reason: 'tampered shoe' } },
    ],
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

  it('Given a decision line, Then the request goes as its actor and the approval as its approverId, else the default approver; no body names an approver', () => {
    const line: TableLogLine = { kind: 'voidRound', shoeId: 'S-1', roundId: 'R-1', reason: 'camera review', approverId: 'pm-8', actor: 'pm-7' };
    expect(apiWriteOf(line)).toEqual({ kind: 'voidRound', method: 'POST', role: 'pit-manager', sub: 'pm-7', path: '/shoes/S-1/rounds/R-1/void', body: { reason: 'camera review' } });
    expect(approvalWriteOf(line, 'dec/1')).toEqual({ kind: 'approveDecision', method: 'POST', role: 'pit-manager', sub: 'pm-8', path: '/decisions/dec%2F1/approve', body: {} });
    // a line written before the two-step approval, without approverId: the default approver
    const old: TableLogLine = { kind: 'correctCommencement', shoeId: 'S-1', card: '5H', reason: 'scanner misread' };
    expect(apiWriteOf(old).body).toEqual({ card: '5H', reason: 'scanner misread' });
    expect(approverOf(old)).toBe('pm-2');
    expect(approvalWriteOf(old, 'd', { device: 'd', platform: 'p', manager: 'm', approver: 'a' })?.sub).toBe('a');
    expect(approvalWriteOf(old, 'd', { device: 'd', platform: 'p', manager: 'm' })?.sub).toBe('pm-2');
    expect(approvalWriteOf({ kind: 'closeShoe', shoeId: 'S-1' }, 'd')).toBeNull();
  });
});
