import { generateKeyPairSync, verify } from 'node:crypto';
import { anchorHash, type SignedAnchor } from '@ledger/anchors';
import { canonicalJson } from '@ledger/event-store';
import { headerValue, reportHeader } from '../kernel/report-header';
import { csvRecord, EXPORT_KINDS, EXPORT_SPECS, isExportKind, type ExportKind } from './export-kinds';
import { bundleAnchors, bundleProblems, manifestBody, MANIFEST_FORMAT, selectAnchors, signManifest, type ExportReceipt } from './export-manifest';

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

describe('bundleAnchors', () => {
  const all = [anchor(1, '10'), anchor(2, '20'), anchor(3, '30'), anchor(4, '40'), anchor(5, '50')];
  it('the selection less the checkpoints after the events file ends (signed after it was exported); none without events', () => {
    expect(bundleAnchors(all, { first: '15', periodLast: '33', through: '40' }).map((a) => a.checkpoint.seq)).toEqual([1, 2, 3, 4]);
    expect(bundleAnchors(all, { first: '15', periodLast: '33', through: '33' }).map((a) => a.checkpoint.seq)).toEqual([1, 2, 3]);
    expect(bundleAnchors(all, { first: null, periodLast: null, through: null })).toEqual([]);
  });
});

describe('the signed manifest: bundleProblems, manifestBody, signManifest', () => {
  const now = new Date('2026-12-02T00:00:00Z');
  const period = { from: '2026-12-01T00:00:00Z', to: '2026-12-02T00:00:00Z' };
  const positions = { first: '11', periodLast: '33', through: '40' };
  const receipt = (kind: ExportKind, over: Partial<ExportReceipt> = {}): ExportReceipt => ({
    id: `00000000-0000-4000-8000-00000000000${EXPORT_KINDS.indexOf(kind)}`,
    kind,
    format: 'jsonl',
    period,
    positions: kind === 'events' ? positions : kind === 'rejections' || kind === 'access-log' ? { first: null, periodLast: null, through: null } : { ...positions, through: null },
    header: reportHeader('t', `export.${kind}`, 1, period, {}, false, now),
    rows: 3,
    bytes: 100,
    sha256: 'a'.repeat(64),
    ...over,
  });
  const five = EXPORT_KINDS.map((k) => receipt(k));

  it('five exports of one period, format and positions make a bundle', () => {
    expect(bundleProblems(five)).toEqual([]);
  });

  it('names what does not: a kind missing or twice, another period, format, header period, positions', () => {
    expect(bundleProblems(five.filter((r) => r.kind !== 'events'))).toEqual(['no events export']);
    expect(bundleProblems([...five, receipt('events', { id: 'x' })])).toEqual(['2 events exports']);
    expect(bundleProblems([...five.slice(1), receipt('events', { period: { ...period, to: '2026-12-03T00:00:00Z' } })])).toEqual(expect.arrayContaining(['exports of different periods', 'a header of another period']));
    expect(bundleProblems([...five.slice(1), receipt('events', { format: 'csv' })])).toEqual(['exports of different formats']);
    expect(bundleProblems([...five.slice(0, 1), receipt('settlements', { positions: { first: '11', periodLast: '34', through: null } }), ...five.slice(2)])[0]).toMatch(/different positions/);
  });

  it('the body lists one file per kind in kind order with its receipt, the events positions and the checkpoints digests; signed with Ed25519 over its canonical JSON', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const anchors = [anchor(1, '10'), anchor(2, '40')];
    const body = manifestBody({ receipts: [...five].reverse(), ledgerId: 'l@1', anchors, keyId: 'ed25519:k', now });
    expect(body.files.map((f) => [f.name, f.receipt])).toEqual(EXPORT_KINDS.map((k, i) => [`${k}.jsonl`, `00000000-0000-4000-8000-00000000000${i}`]));
    expect(body).toMatchObject({ format: MANIFEST_FORMAT, ledgerId: 'l@1', period, positions, keyId: 'ed25519:k', signedAt: now.toISOString(), header: { report: 'export.bundle', noActivity: false } });
    expect(body.anchors).toEqual(anchors.map((a) => ({ seq: a.checkpoint.seq, hash: anchorHash(a.checkpoint) })));
    const m = signManifest({ body, privateKey, anchors, publicKeys: [] });
    expect(m).toMatchObject({ format: MANIFEST_FORMAT, keyId: 'ed25519:k', anchors });
    expect(verify(null, Buffer.from(canonicalJson(body), 'utf8'), publicKey, Buffer.from(m.signature, 'base64'))).toBe(true);
    expect(manifestBody({ receipts: five.map((r) => ({ ...r, rows: 0 })), ledgerId: 'l', anchors: [], keyId: 'k', now }).header.noActivity).toBe(true);
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
