import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { dereference, forRenderer } from '../../apps/console/src/lib/asyncapi';

function hasRef(node: unknown, seen = new Set<unknown>()): boolean {
  if (!node || typeof node !== 'object' || seen.has(node)) return false;
  seen.add(node);
  if (typeof (node as { $ref?: unknown }).$ref === 'string') return true;
  return Object.values(node as object).some((v) => hasRef(v, seen));
}

describe('AsyncAPI document ready to draw', () => {
  it('resolves local refs (with escaped tokens and siblings), shares targets, keeps cycles finite', () => {
    const doc = {
      asyncapi: '3.0.0',
      channels: { c: { messages: { m: { $ref: '#/components/messages/M' } } } },
      operations: { o: { channel: { $ref: '#/channels/c' }, messages: [{ $ref: '#/channels/c/messages/m' }] } },
      components: {
        messages: { M: { payload: { $ref: '#/components/schemas/a~1b', description: 'sibling kept' } } },
        schemas: { 'a/b': { type: 'object', properties: { self: { $ref: '#/components/schemas/a~1b' } } } },
      },
    };
    const d = dereference(doc);
    expect(hasRef(d)).toBe(false);
    const payload = (d.channels.c.messages.m as unknown as { payload: unknown }).payload as { type: string; description: string; properties: { self: unknown } };
    expect(payload.type).toBe('object');
    expect(payload.description).toBe('sibling kept');
    expect((payload.properties.self as { properties: { self: unknown } }).properties.self).toBe(payload.properties.self); // a cycle, not a copy
    const viaRef = d.operations.o.channel as unknown as { messages: { m: { payload: { type: string } } } };
    expect(viaRef.messages.m.payload.type).toBe('object');
    expect(d.operations.o.messages[0]).toBe(viaRef.messages.m); // the same target resolved once, shared
  });

  it('refuses refs it cannot resolve and documents without a version', () => {
    expect(() => dereference({ a: { $ref: '#/nope' } })).toThrow(/not in the document/);
    expect(() => dereference({ a: { $ref: '#/b' }, b: { $ref: '#/a' } })).toThrow(/refers to itself/);
    expect(() => dereference({ a: { $ref: './schemas/x.json' } })).toThrow(/only local refs/);
    expect(() => forRenderer({ info: {} })).toThrow(/not an AsyncAPI document/);
  });

  it("handles the ledger's own document (file refs inlined as the API does) without a $ref left", () => {
    const dir = resolve(__dirname, '../../docs/asyncapi');
    const inline = (node: unknown, at: string): unknown => {
      if (Array.isArray(node)) return node.map((v, i) => inline(v, `${at}/${i}`));
      if (!node || typeof node !== 'object') return node;
      const o = node as Record<string, unknown>;
      if (typeof o.$ref === 'string' && !o.$ref.startsWith('#')) {
        const rebase = (n: unknown): unknown =>
          Array.isArray(n)
            ? n.map(rebase)
            : n && typeof n === 'object'
              ? Object.fromEntries(Object.entries(n).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `#${at}${v.slice(1)}` : rebase(v)]))
              : n;
        return inline(rebase(JSON.parse(readFileSync(resolve(dir, o.$ref), 'utf8'))), at);
      }
      return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, inline(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)]));
    };
    const doc = forRenderer(inline(parse(readFileSync(resolve(dir, 'asyncapi.yaml'), 'utf8')), ''));
    expect(doc['x-parser-spec-parsed']).toBe(true);
    expect(hasRef(doc)).toBe(false);
    expect(Object.keys(doc.channels as object).length).toBeGreaterThan(0);
  });
});
