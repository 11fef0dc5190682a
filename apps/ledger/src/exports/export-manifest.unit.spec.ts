import type { SignedAnchor } from '@ledger/anchors';
import { headerValue, reportHeader } from '../kernel/report-header';
import { csvRecord, EXPORT_KINDS, EXPORT_SPECS, isExportKind } from './export-kinds';
import { buildManifest, MANIFEST_FORMAT, selectAnchors, type ManifestFile } from './export-manifest';

/** The pure parts of the exports (docs/reports.md §5): the checkpoints a period verifies against, the manifest, CSV records, the header as an HTTP header. */
const anchor = (seq: number, globalPosition: string): SignedAnchor =>
  ({
    checkpoint: { format: 'baccarat-ledger-anchor/1', ledgerId: 'l@1', seq, createdAt: '2026-12-01T00:00:00.000Z', globalPosition, streams: [], merkleRoot: '0'.repeat(64), previousAnchorHash: '0'.repeat(64), keyId: 'ed25519:x' },
    keyId: 'ed25519:x',
    signature: 's',
  }) as SignedAnchor;

describe('selectAnchors', () => {
  const all = [anchor(1, '10'), anchor(2, '20'), anchor(3, '30'), anchor(4, '40'), anchor(5, '50')];
  const seqs = (s: { anchors: SignedAnchor[] }) => s.anchors.map((a) => a.checkpoint.seq);

  it('takes the base before the period, every checkpoint inside, and the first at or after its last event; the events export ends there', () => {
    const s = selectAnchors(all, '15', '33');
    expect(seqs(s)).toEqual([1, 2, 3, 4]);
    expect(s.through).toBe('40');
  });

  it('a period ending exactly on a checkpoint ends there; one starting on a checkpoint keeps the checkpoint before as its base', () => {
    expect(selectAnchors(all, '20', '30')).toMatchObject({ through: '30' });
    expect(seqs(selectAnchors(all, '20', '30'))).toEqual([1, 2, 3]);
    expect(seqs(selectAnchors(all, '1', '5'))).toEqual([1]);
  });

  it('no checkpoint after the period yet: the export ends at the period, its tail unanchored', () => {
    const s = selectAnchors(all, '45', '60');
    expect(seqs(s)).toEqual([4, 5]);
    expect(s.through).toBe('60');
  });

  it('no event in the period: nothing; repeats of a seq (file and topic copies) once, in seq order, compared as integers not text', () => {
    expect(selectAnchors(all, null, null)).toEqual({ anchors: [], through: null });
    const s = selectAnchors([anchor(3, '100'), anchor(2, '9'), anchor(2, '9'), anchor(1, '8')], '9', '99');
    expect(seqs(s)).toEqual([1, 2, 3]);
    expect(s.through).toBe('100');
  });
});

describe('buildManifest', () => {
  const h = (noActivity: boolean) => reportHeader('t', 'export.events', 1, { from: 'a', to: 'b' }, {}, noActivity, new Date('2026-12-01T00:00:00Z'));
  const file = (name: string, rows: number): ManifestFile => ({ name, kind: 'events', format: 'jsonl', rows, bytes: 1, sha256: 'f'.repeat(64), header: h(rows === 0) });
  const { noActivity: _n, ...header } = h(false);
  const positions = { first: '1', periodLast: '2', through: '3' };

  it('lists the files, the checkpoints and the key; no activity only when every file is empty', () => {
    const m = buildManifest({ header, ledgerId: 'l@1', positions, files: [file('a', 2), file('b', 0)], anchors: [anchor(1, '3')], publicKey: { keyId: 'ed25519:x', pem: 'P' } });
    expect(m.format).toBe(MANIFEST_FORMAT);
    expect(m.files.map((f) => [f.name, f.rows])).toEqual([
      ['a', 2],
      ['b', 0],
    ]);
    expect(m.header.noActivity).toBe(false);
    expect(m.anchors).toHaveLength(1);
    expect(buildManifest({ header, ledgerId: 'l', positions, files: [file('a', 0), file('b', 0)], anchors: [], publicKey: null }).header.noActivity).toBe(true);
  });

  it('refuses two files of one name', () => {
    expect(() => buildManifest({ header, ledgerId: 'l', positions, files: [file('a', 1), file('a', 1)], anchors: [], publicKey: null })).toThrow(/two files named a/);
  });
});

describe('export kinds and CSV records', () => {
  it('five kinds, each with its columns; an unknown name is none (a Map, not an object index)', () => {
    expect(EXPORT_KINDS).toEqual(['events', 'settlements', 'decisions', 'rejections', 'access-log']);
    for (const k of EXPORT_KINDS) expect(EXPORT_SPECS.get(k)!.columns.length).toBeGreaterThan(5);
    expect(isExportKind('constructor')).toBe(false);
    expect(isExportKind('events')).toBe(true);
  });

  it('a CSV record: actor spread, objects as canonical JSON, null as empty, numbers as text', () => {
    const cols = ['eventId', 'actorId', 'actorRole', 'streamVersion', 'data', 'missing'];
    expect(csvRecord(cols, { eventId: 'e', actor: { id: 'd', role: 'table-device' }, streamVersion: 3, data: { b: 1, a: 'x' }, missing: null })).toEqual(['e', 'd', 'table-device', '3', '{"a":"x","b":1}', '']);
  });

  it('the report header as an HTTP header value: ASCII only, JSON still', () => {
    const v = headerValue({ title: 'Rapport – Zürich 😀', noActivity: true });
    expect(v).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(v)).toEqual({ title: 'Rapport – Zürich 😀', noActivity: true });
  });
});
