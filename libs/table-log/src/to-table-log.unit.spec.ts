import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateShoeScript, ShoeScript, SimTable } from '@ledger/simulator';
import { PureLedger } from './pure-ledger.spec';
import { formatTableLog, formatTableLogLine, TableLogLine } from './table-log-line';
import { toTableLog } from './to-table-log';
import { parseTableLog } from './validate';

const tables: SimTable[] = JSON.parse(readFileSync(resolve(__dirname, '../../../config/tables.json'), 'utf8')).tables;
const table = (id: string) => tables.find((t) => t.tableId === id)!;

/** A busy simulated shoe: exposed, dropped and unneeded cards, voids and corrections. */
function busyShoe(tableId = 'T-CLASSIC-01', seed = 'to-table-log-1'): ShoeScript {
  return generateShoeScript(table(tableId), seed, {
    shoeId: `S-${seed}`,
    dealerId: 'dealer-9',
    accounts: 6,
    exposedCardChance: 0.05,
    droppedCardChance: 0.05,
    unneededCardChance: 0.1,
    managementVoidChance: 0.05,
    correctionChance: 0.05,
  });
}

describe('toTableLog (a simulated shoe as table-log lines)', () => {
  const script = busyShoe();

  it('Given a busy simulated shoe, When written as a log, Then it holds one line per action, in order, each naming the shoe', () => {
    const lines = toTableLog(script);
    expect(lines.map((l) => l.kind)).toEqual(script.actions.map((a) => a.kind));
    expect(lines.every((l) => l.shoeId === script.shoeId)).toBe(true);
    const kinds = new Set(lines.map((l) => l.kind));
    for (const k of ['openShoe', 'commencement', 'burn', 'openRound', 'bets', 'closeBetting', 'deal', 'unneeded', 'expose', 'drop', 'cutCard', 'voidRound', 'correctResult', 'closeShoe']) {
      expect(kinds).toContain(k);
    }
  });

  it('Then every line is valid table log, and the JSONL round-trips', () => {
    const lines = toTableLog(script);
    const parsed = parseTableLog(formatTableLog(lines));
    expect(parsed.errors).toEqual([]);
    expect(parsed.lines.map((l) => l.value)).toEqual(lines);
    expect(parsed.lines.map((l) => l.line)).toEqual(lines.map((_, i) => i + 1));
  });

  it('Then a decision line is the text earlier versions wrote: the command, then its approving manager', () => {
    const lines = toTableLog(script);
    const i = script.actions.findIndex((a) => a.kind === 'voidRound');
    const a = script.actions[i] as { roundId: string; reason: string };
    expect(formatTableLogLine(lines[i])).toBe(`{"kind":"voidRound","shoeId":"${script.shoeId}","roundId":"${a.roundId}","reason":"${a.reason}","approverId":"pm-2"}`);
    const j = script.actions.findIndex((x) => x.kind === 'correctResult');
    expect(Object.keys(lines[j])).toEqual(['kind', 'shoeId', 'roundId', 'cards', 'reason', 'approverId']);
  });

  it('Then the fields of each action are kept, and decisions carry the approving manager', () => {
    const lines = toTableLog(script);
    script.actions.forEach((a, i) => {
      const { kind: _k, ...fields } = a;
      expect(lines[i]).toMatchObject(fields);
    });
    const decisions = lines.filter((l) => l.kind === 'voidRound' || l.kind === 'correctResult');
    expect(decisions.length).toBeGreaterThan(0);
    for (const d of decisions) expect(d).toMatchObject({ approverId: 'pm-2' });
    expect(lines.some((l) => 'actor' in l)).toBe(false);
  });

  it('Given actors, Then each line names its sender by role and decisions the given approver', () => {
    const lines = toTableLog(script, { actors: { device: 'dev-3', platform: 'plat-2', manager: 'pm-7', approver: 'pm-8' } });
    const byKind = (k: string) => lines.filter((l) => l.kind === k);
    expect(byKind('deal').every((l) => l.actor === 'dev-3')).toBe(true);
    expect(byKind('bets').every((l) => l.actor === 'plat-2')).toBe(true);
    expect(byKind('voidRound').every((l) => l.actor === 'pm-7' && 'approverId' in l && l.approverId === 'pm-8')).toBe(true);
  });

  it("Given single bet lines, Then each bet is its own line, in the batch's order, and nothing else changes", () => {
    const batch = toTableLog(script);
    const single = toTableLog(script, { betLines: 'single' });
    const flattened = batch.flatMap((l): TableLogLine[] => (l.kind === 'bets' ? l.bets.map((b) => ({ kind: 'bet', shoeId: l.shoeId, roundId: l.roundId, ...b })) : [l]));
    expect(single).toEqual(flattened);
  });

  it.each(tables.map((t) => [t.tableId]))('Given a shoe of %s, When its log is decided line by line by the ledger state machine, Then every line is accepted and every round ends resulted or voided', (tableId) => {
    const s = busyShoe(tableId, `pure-${tableId}`);
    const ledger = new PureLedger(tables);
    for (const l of toTableLog(s, { betLines: 'single' })) ledger.apply(l);
    const state = ledger.state(s.shoeId)!;
    expect(state.status).toBe('CLOSED');
    expect(state.rounds.length).toBe(s.rounds);
    expect(state.rounds.every((r) => r.phase === 'RESULTED' || r.phase === 'VOIDED')).toBe(true);
  });
});
