import {
  ERROR_CODES,
  ERROR_TABLE,
  ERROR_TABLE_END,
  ERROR_TABLE_START,
  KIND_MEANING,
  KIND_STATUS,
  errorCodeEntries,
  errorResponseSchema,
  errorSpec,
  formatErrorMessage,
  isErrorCode,
  renderErrorTableMarkdown,
  spliceErrorTable,
  type ErrorCode,
  type ErrorCodeRaisedBy,
  type StatusOf,
} from './index';

describe('the error table (docs/architecture.md §4)', () => {
  it('holds every code once, each `AREA.REASON` (or INTERNAL)', () => {
    expect(ERROR_CODES.length).toBeGreaterThan(80);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) expect([code, /^([A-Z][A-Z0-9_]*\.[A-Z][A-Z0-9_]*|INTERNAL)$/.test(code)]).toEqual([code, true]);
  });

  it.each(ERROR_CODES.map((c) => [c]))('Given %s, Then its status is the status of its kind, and it has a message and a source', (code) => {
    const s = errorSpec(code);
    expect(s.status).toBe(KIND_STATUS[s.kind]);
    expect(s.message.trim().length).toBeGreaterThan(5);
    expect(s.raisedBy.length).toBeGreaterThan(0);
  });

  it('gives each kind one status and a meaning', () => {
    expect(Object.keys(KIND_MEANING).sort()).toEqual(Object.keys(KIND_STATUS).sort());
    expect(KIND_STATUS).toMatchObject({ validation: 400, auth: 401, forbidden: 403, 'not-found': 404, conflict: 409, 'wrong-state': 422, 'rule-violation': 422, internal: 500 });
  });

  it('keeps the statuses the API is known by: a stale version 409, a rule 422, malformed input 400, an unknown entity 404, auth 401/403', () => {
    const expected: Partial<Record<ErrorCode, number>> = {
      'STREAM.VERSION_CONFLICT': 409,
      'IDEMPOTENCY.KEY_REUSED': 409,
      'SHOE.ALREADY_OPENED': 409,
      'TABLEAU.VIOLATION': 422,
      'BET.OUTSIDE_WINDOW': 422,
      'ROUND.BETTING_CLOSED': 422,
      'ROUND.DUPLICATE_ID': 422,
      'MANAGEMENT.SAME_APPROVER': 422,
      'VALIDATION.FAILED': 400,
      'CARD.MALFORMED': 400,
      'SHOE.NOT_FOUND': 404,
      'TABLE.UNKNOWN': 404,
      'AUTH.UNAUTHENTICATED': 401,
      'AUTH.FORBIDDEN': 403,
      INTERNAL: 500,
    };
    for (const [code, status] of Object.entries(expected)) expect([code, errorSpec(code as ErrorCode).status]).toEqual([code, status]);
    const closed: StatusOf<'SHOE.CLOSED'> = 422;
    expect(closed).toBe(ERROR_TABLE['SHOE.CLOSED'].status);
  });

  it('knows its codes and refuses a string that is none', () => {
    expect(isErrorCode('SHOE.CLOSED')).toBe(true);
    expect(isErrorCode('SHOE.OPENED')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
    expect(() => errorSpec('NOPE.NOPE' as ErrorCode)).toThrow('not in the error table');
  });

  it('selects codes by who raises them', () => {
    const store: ErrorCodeRaisedBy<'event-store'>[] = ['STREAM.VERSION_CONFLICT', 'ROUND.DUPLICATE_ID', 'APPEND.INVALID'];
    for (const c of store) expect(ERROR_TABLE[c].raisedBy).toContain('event-store');
    // @ts-expect-error AUTH.FORBIDDEN is raised by the API, not by the shoe
    const notShoe: ErrorCodeRaisedBy<'shoe'> = 'AUTH.FORBIDDEN';
    expect(notShoe).toBe('AUTH.FORBIDDEN');
  });

  it('fills a message template from details, leaving unknown placeholders', () => {
    expect(formatErrorMessage('SHOE.CLOSED', { shoeId: 'S-1' })).toBe('shoe S-1 is closed: only management decisions remain possible');
    expect(formatErrorMessage('EVENT.DUPLICATE_ID', { eventIds: ['a', 'b'], reason: 'PARTIAL' })).toBe('event id(s) a, b already recorded (PARTIAL)');
    expect(formatErrorMessage('STREAM.VERSION_CONFLICT', { streamId: 'shoe-1', actualVersion: 3 })).toBe('stream shoe-1 is at version 3, the request expected {expectedVersion}');
    expect(formatErrorMessage('BET.BELOW_MINIMUM', { stake: 5n, betCode: 'TIE', min: 100 })).toBe('stake 5 is below the TIE minimum 100');
  });

  it('lists every code for machines: x-error-codes entries and the ErrorResponse code enum', () => {
    expect(errorCodeEntries().map((e) => e.code)).toEqual([...ERROR_CODES]);
    expect(errorCodeEntries().find((e) => e.code === 'ROUND.NOT_FOUND')).toEqual({ code: 'ROUND.NOT_FOUND', status: 404, kind: 'not-found', message: 'no round {roundId}', raisedBy: ['shoe', 'api'] });
    const schema = errorResponseSchema() as { properties: { error: { properties: { code: { enum: string[] } } } } };
    expect(schema.properties.error.properties.code.enum).toEqual([...ERROR_CODES]);
  });

  it('renders one Markdown row per code and per kind', () => {
    const md = renderErrorTableMarkdown();
    for (const code of ERROR_CODES) expect(md).toContain(`| \`${code}\` | `);
    expect(md).toContain('| `SHOE.CLOSED` | 422 | wrong-state | shoe {shoeId} is closed: only management decisions remain possible | shoe |');
    expect(md).toContain('| `PROJECTION.STREAM_GAP` | (500) | internal |');
    expect(md).toContain('| `rule-violation` | 422 |');
  });

  it('splices the table between the README markers, idempotently, and refuses a README without them', () => {
    const readme = `# R\n\ntext\n${ERROR_TABLE_START}\nstale\n${ERROR_TABLE_END}\n\nafter\n`;
    const once = spliceErrorTable(readme);
    expect(once).toBe(`# R\n\ntext\n${ERROR_TABLE_START}\n${renderErrorTableMarkdown()}\n${ERROR_TABLE_END}\n\nafter\n`);
    expect(spliceErrorTable(once)).toBe(once);
    expect(() => spliceErrorTable('# R\n')).toThrow('README needs exactly one');
    expect(() => spliceErrorTable(`${ERROR_TABLE_END}\n${ERROR_TABLE_START}`)).toThrow('README needs exactly one');
    expect(() => spliceErrorTable(`${ERROR_TABLE_START}${ERROR_TABLE_END}${ERROR_TABLE_START}${ERROR_TABLE_END}`)).toThrow('README needs exactly one');
  });
});
