import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DECISION_KINDS, TABLE_LOG_KINDS, TableLogKind, formatTableLog } from './table-log-line';
import { fieldsOf, formatTableLogError, parseTableLog, parseTableLogLine, validateTableLogLine } from './validate';

/** A valid line of every kind, with every optional field it may have. */
const VALID: Record<TableLogKind, Record<string, unknown>> = {
  openShoe: { kind: 'openShoe', shoeId: 'S-1', tableId: 'T-CLASSIC-01', dealerId: 'dealer-7', occurredAt: '2026-11-29T12:00:00Z', actor: 'device-1' },
  commencement: { kind: 'commencement', shoeId: 'S-1', card: '2H' },
  burn: { kind: 'burn', shoeId: 'S-1', card: null },
  openRound: { kind: 'openRound', shoeId: 'S-1', roundId: 'R-1', occurredAt: '2026-11-29T12:00:01.250+01:00' },
  closeBetting: { kind: 'closeBetting', shoeId: 'S-1', roundId: 'R-1' },
  deal: { kind: 'deal', shoeId: 'S-1', roundId: 'R-1', position: 'P3', card: '10H' },
  unneeded: { kind: 'unneeded', shoeId: 'S-1', roundId: 'R-1', card: 'qd' },
  expose: { kind: 'expose', shoeId: 'S-1', card: 'KS', phase: 'SHUFFLE' },
  drop: { kind: 'drop', shoeId: 'S-1', card: null, exposedBeforeLeavingView: false, phase: 'SCOOPING' },
  cutCard: { kind: 'cutCard', shoeId: 'S-1' },
  changeDealer: { kind: 'changeDealer', shoeId: 'S-1', dealerId: 'dealer-8' },
  closeShoe: { kind: 'closeShoe', shoeId: 'S-1', actor: 'device-2' },
  bet: { kind: 'bet', shoeId: 'S-1', roundId: 'R-1', betId: 'b1', accountId: 'acct-1', betCode: 'BANKER', stake: '2500', currency: 'EUR', actor: 'platform-1' },
  bets: {
    kind: 'bets',
    shoeId: 'S-1',
    roundId: 'R-1',
    bets: [
      { betId: 'b1', accountId: 'acct-1', betCode: 'PLAYER', stake: '100', currency: 'EUR' },
      { betId: 'b2', accountId: 'acct-1', betCode: 'PLAYER_PAIR', stake: '9007199254740993', currency: 'EUR' },
    ],
  },
  voidRound: { kind: 'voidRound', shoeId: 'S-1', roundId: 'R-1', reason: 'camera review', approverId: 'pm-2', actor: 'pm-1' },
  correctResult: { kind: 'correctResult', shoeId: 'S-1', roundId: 'R-1', cards: ['2S', 'KC', '3H', '6D', 'AS'], reason: 'P1/B1 swapped', approverId: 'pm-2' },
  voidShoe: { kind: 'voidShoe', shoeId: 'S-1', reason: 'shoe tampered with', approverId: 'pm-2' },
  correctCommencement: { kind: 'correctCommencement', shoeId: 'S-1', card: '5H', reason: 'scanner misread', approverId: 'pm-3' },
};

/** Errors of one object as `field: message` strings. */
function errorsOf(raw: unknown, line = 1): string[] {
  const r = validateTableLogLine(raw, line);
  return r.ok ? [] : r.errors.map((e) => `${e.field}: ${e.message}`);
}

describe('table-log validator', () => {
  it.each(TABLE_LOG_KINDS.map((k) => [k]))('Given a complete %s line, When validated, Then it is accepted as is', (kind) => {
    const r = validateTableLogLine(VALID[kind], 3);
    expect(r).toEqual({ ok: true, line: 3, value: VALID[kind] });
  });

  it.each(TABLE_LOG_KINDS.map((k) => [k]))('Given a %s line without each required field in turn, Then that field is named as required', (kind) => {
    for (const field of fieldsOf(kind).required.filter((f) => f !== 'kind')) {
      const { [field]: _dropped, ...rest } = VALID[kind];
      expect(errorsOf(rest)).toEqual([`${field}: is required`]);
    }
  });

  it.each(TABLE_LOG_KINDS.map((k) => [k]))('Given a %s line with an unknown field, Then the field is refused and the allowed ones listed', (kind) => {
    const [e] = errorsOf({ ...VALID[kind], colour: 'blue' });
    expect(e).toMatch(/^colour: is not a field of a \w+ line \(fields: kind, shoeId/);
  });

  it.each([
    ['deal', { position: 'P4' }, 'position: must be one of P1, B1, P2, B2, P3, B3, got "P4"'],
    ['deal', { card: '1S' }, 'card: must be a card like "9S", "TH" or "10H", got "1S"'],
    ['deal', { card: ' 9S' }, 'card: must be a card like "9S", "TH" or "10H", got " 9S"'],
    ['commencement', { card: null }, 'card: must be a card like "9S", "TH" or "10H", got null'],
    ['burn', { card: 'XX' }, 'card: must be a card like "9S", "TH" or "10H", got "XX"'],
    ['openShoe', { shoeId: 'bad id with spaces' }, 'shoeId: must be an id of 1–64 characters A–Z a–z 0–9 _ . : -, got "bad id with spaces"'],
    ['openShoe', { occurredAt: '2026-11-29' }, 'occurredAt: must be an ISO-8601 timestamp with a zone, e.g. "2026-11-29T12:00:00.000Z", got "2026-11-29"'],
    ['openShoe', { occurredAt: '2026-02-30T12:00:00Z' }, 'occurredAt: must be an ISO-8601 timestamp with a zone, e.g. "2026-11-29T12:00:00.000Z", got "2026-02-30T12:00:00Z"'],
    ['openShoe', { occurredAt: '2026-11-29T12:00:00' }, 'occurredAt: must be an ISO-8601 timestamp with a zone, e.g. "2026-11-29T12:00:00.000Z", got "2026-11-29T12:00:00"'],
    ['closeShoe', { actor: '' }, 'actor: must be an id of 1–64 characters A–Z a–z 0–9 _ . : -, got ""'],
    ['bet', { stake: 2500 }, 'stake: must be minor units as a string of digits, e.g. "2500" for 25.00, got 2500'],
    ['bet', { stake: '25.00' }, 'stake: must be minor units as a string of digits, e.g. "2500" for 25.00, got "25.00"'],
    ['bet', { stake: '-100' }, 'stake: must be minor units as a string of digits, e.g. "2500" for 25.00, got "-100"'],
    ['bet', { currency: 'eur' }, 'currency: must be an ISO 4217 code like "EUR", got "eur"'],
    ['bet', { betCode: 'banker' }, 'betCode: must be a bet code like "BANKER", got "banker"'],
    ['bets', { bets: [] }, 'bets: must be a list of 1–10000 bets, got 0 items'],
    ['bets', { bets: 'b1' }, 'bets: must be a list of 1–10000 bets, got "b1"'],
    ['drop', { exposedBeforeLeavingView: 'no' }, 'exposedBeforeLeavingView: must be true or false, got "no"'],
    ['drop', { phase: 'DEALING' }, 'phase: must be one of SHUFFLE, SCOOPING, got "DEALING"'],
    ['expose', { phase: 'SCOOPING' }, 'phase: must be one of SHUFFLE, got "SCOOPING"'],
    ['voidRound', { reason: 'no' }, 'reason: must be a reason of 3–500 characters, no control characters but tab and line breaks, got "no"'],
    ['voidRound', { reason: 'bell \u0007 rang' }, 'reason: must be a reason of 3–500 characters, no control characters but tab and line breaks, got "bell \\u0007 rang"'],
    ['voidShoe', { reason: 'lone \ud800 surrogate' }, 'reason: must be a reason of 3–500 characters, no control characters but tab and line breaks, got "lone \\ud800 surrogate"'],
    ['voidShoe', { approverId: 7 }, 'approverId: must be an id of 1–64 characters A–Z a–z 0–9 _ . : -, got 7'],
    ['correctResult', { cards: ['2S', 'KC', '3H'] }, `cards: must be the round's 4–6 cards in dealing order, got ["2S","KC","3H"]`],
    ['correctCommencement', { reason: 'x'.repeat(501) }, expect.stringMatching(/^reason: must be a reason of 3–500 characters, .*got "x{10}/)],
  ] as const)('Given a %s line with a bad value (%#), Then the error names the field and the value', (kind, patch, message) => {
    expect(errorsOf({ ...VALID[kind], ...patch })).toEqual([message]);
  });

  it('Given a bets batch with several bad bets, Then every problem is reported with its index', () => {
    const bets = [
      { betId: 'b1', accountId: 'acct-1', betCode: 'PLAYER', stake: '100', currency: 'EUR' },
      { betId: 'b 2', accountId: 'acct-1', betCode: 'PLAYER', stake: 100, currency: 'EUR', extra: 1 },
      'b3',
      { accountId: 'acct-1', betCode: 'TIE', stake: '100', currency: 'EUR' },
    ];
    expect(errorsOf({ ...VALID.bets, bets }).map((e) => e.split(':')[0])).toEqual(['bets[1].betId', 'bets[1].stake', 'bets[1].extra', 'bets[2]', 'bets[3].betId']);
  });

  it.each(DECISION_KINDS.map((k) => [k]))('Given a %s line, Then approverId (the second manager) is optional, an id, and the only approver field', (kind) => {
    expect(fieldsOf(kind).optional).toEqual(['occurredAt', 'actor', 'approverId']);
    const { approverId: _a, ...withoutApprover } = VALID[kind];
    expect(errorsOf(withoutApprover)).toEqual([]);
    expect(errorsOf({ ...VALID[kind], approverId: 'pm 2' })).toEqual(['approverId: must be an id of 1–64 characters A–Z a–z 0–9 _ . : -, got "pm 2"']);
    expect(errorsOf({ ...VALID[kind], approvedBy: 'pm-2' })[0]).toMatch(/^approvedBy: is not a field/);
  });

  it('Given a line that is not a decision, Then approverId is not one of its fields', () => {
    expect(errorsOf({ ...VALID.closeShoe, approverId: 'pm-2' })[0]).toMatch(/^approverId: is not a field of a closeShoe line/);
  });

  it('Given decision lines written before the two-step approval, Then they are still valid, with the same meaning', () => {
    const old = [
      '{"kind":"voidRound","shoeId":"S-001","roundId":"S-001-r001","reason":"dealing procedure breach seen on camera review","approverId":"pm-2","actor":"pm-1"}',
      '{"kind":"correctResult","shoeId":"S-1","roundId":"R-1","cards":["2S","KC","3H","6D","AS"],"reason":"P1/B1 swapped","approverId":"pm-2"}',
      '{"kind":"voidShoe","shoeId":"S-1","reason":"shoe tampered with","approverId":"pm-2"}',
      '{"kind":"correctCommencement","shoeId":"S-1","card":"5H","reason":"scanner misread"}',
    ];
    const parsed = parseTableLog(old.join('\n') + '\n');
    expect(parsed.errors).toEqual([]);
    expect(parsed.lines.map((l) => l.value)).toEqual(old.map((t) => JSON.parse(t)));
    expect(parsed.lines.map((l) => formatTableLog([l.value]))).toEqual(old.map((t) => `${t}\n`));
  });

  it('Given reasons with tabs, line breaks or non-Latin text, Then they are accepted', () => {
    expect(errorsOf({ ...VALID.voidRound, reason: 'line one\n\tline two' })).toEqual([]);
    expect(errorsOf({ ...VALID.voidRound, reason: 'ไพ่เปิดก่อนปิดรับเดิมพัน' })).toEqual([]);
  });

  it.each([['__proto__'], ['constructor'], ['toString']])('Given a line with a %s key, Then it is an unknown field, not taken for a known one', (key) => {
    const r = parseTableLogLine(`{"kind":"cutCard","shoeId":"S-1","${key}":{"x":1}}`, 2);
    expect(r && !r.ok && r.errors.map((e) => e.field)).toEqual([key]);
    const b = parseTableLogLine(`{"kind":"bets","shoeId":"S-1","roundId":"R","bets":[{"betId":"b","accountId":"a","betCode":"TIE","stake":"1","currency":"EUR","${key}":1}]}`, 3);
    expect(b && !b.ok && b.errors.map((e) => e.field)).toEqual([`bets[0].${key}`]);
  });

  it('Given a correction with a malformed card, Then the card is named by its index', () => {
    expect(errorsOf({ ...VALID.correctResult, cards: ['2S', 'KC', '3H', 'ZZ'] })).toEqual(['cards[3]: must be a card like "9S", "TH" or "10H", got "ZZ"']);
  });

  it('Given a line with several problems, Then all of them are reported, not only the first', () => {
    expect(errorsOf({ kind: 'deal', shoeId: 'S-1', position: 'X', card: 'ZZ', note: 1 }).map((e) => e.split(':')[0])).toEqual(['roundId', 'position', 'card', 'note']);
  });

  it.each([
    ['an array', [1, 2], 'must be a JSON object, got an array'],
    ['a number', 42, 'must be a JSON object, got 42'],
    ['null', null, 'must be a JSON object, got null'],
  ])('Given %s, Then the line as a whole is refused', (_what, raw, message) => {
    expect(validateTableLogLine(raw, 9)).toEqual({ ok: false, line: 9, errors: [{ line: 9, kind: null, field: null, message }] });
  });

  it('Given an unknown or missing kind, Then the kind field is named and the kinds listed', () => {
    const r = validateTableLogLine({ kind: 'shuffle', shoeId: 'S-1' }, 4);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(formatTableLogError(r.errors[0])).toMatch(/^line 4: kind: must be one of openShoe, commencement, .*correctCommencement, got "shuffle"$/);
    expect(errorsOf({ shoeId: 'S-1' })).toEqual(['kind: is required']);
  });

  it('Given text that is not JSON, Then the line is refused with the parser message', () => {
    const r = parseTableLogLine('{"kind":"cutCard",', 5);
    expect(r?.ok).toBe(false);
    if (r && !r.ok) expect(formatTableLogError(r.errors[0])).toMatch(/^line 5: is not valid JSON \(/);
    expect(parseTableLogLine('   ', 6)).toBeNull();
    expect(parseTableLogLine('{"kind":"cutCard","shoeId":"S-1"}\r', 7)).toMatchObject({ ok: true });
  });

  it('Given a file with blank and bad lines, When parsed, Then line numbers are physical lines and the good lines keep their order', () => {
    const text = [JSON.stringify(VALID.openShoe), '', JSON.stringify(VALID.commencement), JSON.stringify({ ...VALID.deal, position: 'P9' }), 'not json', JSON.stringify(VALID.burn), ''].join('\n');
    const parsed = parseTableLog(text);
    expect(parsed.lines.map((l) => [l.line, l.value.kind])).toEqual([
      [1, 'openShoe'],
      [3, 'commencement'],
      [6, 'burn'],
    ]);
    expect(parsed.badLines).toBe(2);
    expect(parsed.errors.map(formatTableLogError)).toEqual(['line 4 (deal): position: must be one of P1, B1, P2, B2, P3, B3, got "P9"', expect.stringMatching(/^line 5: is not valid JSON/)]);
  });

  it('Given valid lines, When formatted and parsed again, Then they round-trip', () => {
    const lines = TABLE_LOG_KINDS.map((k) => validateTableLogLine(VALID[k], 1)).map((r) => (r.ok ? r.value : null)!);
    const parsed = parseTableLog(formatTableLog(lines));
    expect(parsed.errors).toEqual([]);
    expect(parsed.lines.map((l) => l.value)).toEqual(lines);
  });

  describe('TABLE_LOG_FORMAT.md', () => {
    const doc = readFileSync(resolve(__dirname, '..', 'TABLE_LOG_FORMAT.md'), 'utf8');

    it('documents every kind with every one of its fields', () => {
      for (const kind of TABLE_LOG_KINDS) {
        const row = doc.split('\n').find((l) => l.startsWith(`| \`${kind}\` |`));
        expect(row).toBeDefined();
        const own = [...fieldsOf(kind).required, ...fieldsOf(kind).optional].filter((f) => !['kind', 'shoeId', 'occurredAt', 'actor'].includes(f));
        // the bet kinds document the bet's fields once, in the sentence above the table
        const expectedFields = kind === 'bet' ? ['roundId'] : own;
        for (const f of expectedFields) expect(`${kind}: ${row}`).toContain(`\`${f}\``);
      }
    });

    it('has an example whose every line is valid', () => {
      const block = /```jsonl\n([\s\S]*?)```/.exec(doc)![1];
      const parsed = parseTableLog(block);
      expect(parsed.errors).toEqual([]);
      expect(parsed.lines.map((l) => l.value.kind)).toEqual(expect.arrayContaining(['openShoe', 'commencement', 'burn', 'openRound', 'bets', 'bet', 'closeBetting', 'deal', 'cutCard', 'closeShoe']));
    });
  });
});
