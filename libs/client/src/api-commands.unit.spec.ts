import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { API_COMMAND_KINDS, API_COMMANDS, apiRequestOf, commandFields, commandKindsOf, isApiCommandKind, normalizeCommand, type ApiCommand } from './api-commands';

/** One command of every kind, every field set (optional ones too), with ids that need encoding. */
const EXAMPLES: ApiCommand[] = [
  { kind: 'openShoe', shoeId: 'S:1', tableId: 'T 1', dealerId: 'd1' },
  { kind: 'commencement', shoeId: 'S:1', card: '2H' },
  { kind: 'burn', shoeId: 'S:1', card: null },
  { kind: 'openRound', shoeId: 'S:1', roundId: 'R/1' },
  { kind: 'closeBetting', shoeId: 'S:1', roundId: 'R/1' },
  { kind: 'deal', shoeId: 'S:1', roundId: 'R/1', position: 'P1', card: '9S' },
  { kind: 'unneeded', shoeId: 'S:1', roundId: 'R/1', card: '9S' },
  { kind: 'expose', shoeId: 'S:1', card: 'KS', phase: 'SHUFFLE' },
  { kind: 'drop', shoeId: 'S:1', card: null, exposedBeforeLeavingView: true, phase: 'SCOOPING' },
  { kind: 'cutCard', shoeId: 'S:1' },
  { kind: 'changeDealer', shoeId: 'S:1', dealerId: 'd2' },
  { kind: 'closeShoe', shoeId: 'S:1' },
  { kind: 'bet', shoeId: 'S:1', roundId: 'R/1', betId: 'b1', accountId: 'a1', betCode: 'TIE', stake: '500', currency: 'EUR' },
  { kind: 'bets', shoeId: 'S:1', roundId: 'R/1', bets: [{ betId: 'b2', accountId: 'a2', betCode: 'BANKER', stake: '2500', currency: 'EUR' }] },
  { kind: 'voidRound', shoeId: 'S:1', roundId: 'R/1', reason: 'camera review', approverId: 'pm-2' },
  { kind: 'correctResult', shoeId: 'S:1', roundId: 'R/1', cards: ['9S', '7H', 'KD', 'QC'], reason: 'wrong dealing', approverId: 'pm-2' },
  { kind: 'voidShoe', shoeId: 'S:1', reason: 'tampered shoe', approverId: 'pm-2' },
  { kind: 'correctCommencement', shoeId: 'S:1', card: '5H', reason: 'scanner misread' },
];

describe('API_COMMANDS (the one definition of the client vocabulary)', () => {
  it('has the kinds in documentation order: table facts, then bets, then decisions', () => {
    expect(API_COMMAND_KINDS).toEqual(EXAMPLES.map((c) => c.kind));
    expect([...commandKindsOf('table-device'), ...commandKindsOf('betting-platform'), ...commandKindsOf('pit-manager')]).toEqual(API_COMMAND_KINDS);
    expect(commandKindsOf('betting-platform')).toEqual(['bet', 'bets']);
    expect(commandKindsOf('pit-manager')).toEqual(['voidRound', 'correctResult', 'voidShoe', 'correctCommencement']);
    expect(isApiCommandKind('deal')).toBe(true);
    expect(isApiCommandKind('constructor')).toBe(false);
  });

  it('names in each path template only the shoe and the command\'s own fields', () => {
    for (const kind of API_COMMAND_KINDS) {
      const names = [...API_COMMANDS[kind].path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const fields = new Set(['shoeId', ...commandFields(kind).map(([f]) => f)]);
      expect({ kind, unknown: names.filter((n) => !fields.has(n)) }).toEqual({ kind, unknown: [] });
    }
  });

  it('is the route table TABLE_LOG_FORMAT.md documents, kind by kind', () => {
    const doc = readFileSync(resolve(__dirname, '../../table-log/TABLE_LOG_FORMAT.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `(\w+)` \|.*?\| `(POST) ([^`]+)`/gm)].map((m) => [m[1], m[2], m[3].replace('…', '/shoes/{shoeId}')]);
    expect(documented).toEqual(API_COMMAND_KINDS.map((k) => [k, API_COMMANDS[k].method, API_COMMANDS[k].path]));
  });

  it('Given a command, Then its request fills and encodes the path, and the body holds the fields the path does not name, occurredAt last', () => {
    expect(apiRequestOf({ kind: 'deal', shoeId: 'S:1', roundId: 'R/1', position: 'P1', card: '9S', occurredAt: '2026-11-29T12:00:00Z' })).toEqual({
      kind: 'deal',
      method: 'POST',
      role: 'table-device',
      path: '/shoes/S%3A1/rounds/R%2F1/cards',
      body: { position: 'P1', card: '9S', occurredAt: '2026-11-29T12:00:00Z' },
    });
    expect(apiRequestOf(EXAMPLES[0])).toMatchObject({ path: '/tables/T%201/shoes', body: { shoeId: 'S:1', dealerId: 'd1' } });
    expect(apiRequestOf(EXAMPLES[12]).body).toEqual({ bet: { betId: 'b1', accountId: 'a1', betCode: 'TIE', stake: '500', currency: 'EUR' } });
    expect(apiRequestOf({ kind: 'expose', shoeId: 'S', card: 'KS' }).body).toEqual({ card: 'KS' }); // absent optional field: not sent
    expect(apiRequestOf({ kind: 'cutCard', shoeId: 'S' }).body).toEqual({});
  });

  it('Given a command with extra properties, Then normalizing keeps exactly its fields, in order', () => {
    const extra = { kind: 'bets', shoeId: 'S', roundId: 'R', actor: 'x', bets: [{ betId: 'b', accountId: 'a', betCode: 'TIE', stake: '1', currency: 'EUR', note: 'dropped' }] } as unknown as ApiCommand;
    expect(JSON.stringify(normalizeCommand(extra))).toBe('{"kind":"bets","shoeId":"S","roundId":"R","bets":[{"betId":"b","accountId":"a","betCode":"TIE","stake":"1","currency":"EUR"}]}');
    for (const c of EXAMPLES) expect(normalizeCommand(c)).toEqual(c);
  });
});
