import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../kernel/api-error';
import { inlineFileRefs } from './asyncapi.controller';
import { ConsoleStaticController } from './console-static.controller';

describe('the console not built', () => {
  it('answers 404 FILES.NOT_BUILT naming the build command', () => {
    const c = new ConsoleStaticController(() => null);
    const res = { setHeader: jest.fn(), sendFile: jest.fn() } as never;
    let err: unknown;
    try {
      c.index(res);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'FILES.NOT_BUILT', status: 404 });
    expect((err as Error).message).toContain('npm run -s build');
  });
});

describe('inlineFileRefs (GET /asyncapi)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'asyncapi-'));
  mkdirSync(join(dir, 'schemas'));
  writeFileSync(join(dir, 'schemas', 'a.json'), JSON.stringify({ type: 'object', properties: { x: { $ref: '#/definitions/X' } }, definitions: { X: { type: 'string' } } }));

  it('replaces a file ref by the file, its local refs pointing where it now sits', () => {
    const doc = { components: { messages: { M: { payload: { $ref: './schemas/a.json' } }, N: { payload: { $ref: '#/components/messages/M/payload' } } } } };
    const out = inlineFileRefs(doc, dir) as any;
    expect(out.components.messages.M.payload.properties.x).toEqual({ $ref: '#/components/messages/M/payload/definitions/X' });
    expect(out.components.messages.M.payload.definitions.X).toEqual({ type: 'string' });
    expect(out.components.messages.N.payload).toEqual({ $ref: '#/components/messages/M/payload' });
  });

  it('refuses a ref that leaves the directory', () => {
    expect(() => inlineFileRefs({ $ref: '../etc/passwd' }, join(dir, 'schemas'))).toThrow(/leaves/);
  });
});
