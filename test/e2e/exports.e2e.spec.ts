/**
 * Exports for regulators (docs/reports.md §5), the acceptance: "An export verifies with
 * the standalone recipe alone; altering one byte of an exported event makes it fail."
 *
 * Real PostgreSQL and Kafka, the real API, relay and projector (in-process, test/support/ledger-harness.ts),
 * and a real anchor publisher signing checkpoints into an anchor file the API reads. A shoe with voids
 * and corrections is dealt through the API; `npm run export` (scripts/export.ts, as a process) writes
 * the bundle of the period through the API with an auditor token; `node examples/verify-export/verify.mjs`
 * (as a process, Node built-ins only, with the operator's key) must accept it, and refuse it after one
 * byte of one event is changed (with and without the manifest fixed up), a file is cut short, an event
 * is removed, or an event is rewritten with every later hash recomputed — the last ones also when the
 * manifest is signed again with the operator's key (as an API over a rewritten database would sign it):
 * the signed checkpoints still catch them. test/attack/malicious-exporter.e2e.spec.ts is the full
 * catalogue of tampered bundles.
 * The API reads in batches of 25 rows (`EXPORT_BATCH_ROWS`): every export here spans many batches.
 */
import { spawn } from 'node:child_process';
import { createHash, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateShoeScript, runShoeScript, type ShoeScript, type SimTable } from '@ledger/simulator';
import { AnchorPublisher, readSigningKey } from '@ledger/anchors';
import { computeEventHash, defaultLogger } from '@ledger/event-store';
import { LedgerHarness, runId, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';
import { core, resign } from '../support/bundle-tamper';

jest.setTimeout(300_000);

const ROOT = resolve(__dirname, '../..');
const VERIFY = join(ROOT, 'examples/verify-export/verify.mjs');
const BATCH = 25;
const tables: SimTable[] = JSON.parse(readFileSync(join(ROOT, 'config/tables.json'), 'utf8')).tables;

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((res) => child.on('exit', (code) => res({ code, stdout, stderr })));
}

let operatorKeyFile = '';
/** The verifier with the operator's public key (as published, outside the bundle). */
const verifyBundle = (dir: string, extra: string[] = ['--key', operatorKeyFile]) => run([VERIFY, dir, ...extra]);
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** A copy of the bundle to tamper with. */
function copyOf(dir: string, name: string): string {
  const to = join(dir, '..', name);
  cpSync(dir, to, { recursive: true });
  return to;
}

/**
 * Rewrites a JSONL export file of a bundle (lines without the header and trailer) and fixes the
 * manifest up, as a forger would; `fixManifest: 'signed'` signs it again with the operator's key, as
 * an API over a rewritten database would.
 */
function rewriteEvents(dir: string, edit: (rows: Record<string, any>[]) => Record<string, any>[], fixManifest: boolean | 'signed' = true): void {
  const file = join(dir, 'events.jsonl');
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const head = lines[0];
  const rows = edit(lines.slice(1, -1).map((l) => JSON.parse(l)));
  const text = [head, ...rows.map((r) => JSON.stringify(r)), JSON.stringify({ trailer: { rows: rows.length } })].join('\n') + '\n';
  writeFileSync(file, text);
  if (!fixManifest) return;
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const f = core(m).files.find((x: { name: string }) => x.name === 'events.jsonl');
  Object.assign(f, { sha256: sha(text), bytes: Buffer.byteLength(text), rows: rows.length });
  if (fixManifest === 'signed') resign(m, createPrivateKey(readFileSync(operatorKeyFile.replace('public', 'private'))));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2));
}

function shoeWithDecisions(table: SimTable, shoeId: string): ShoeScript {
  for (let i = 0; i < 500; i++) {
    const s = generateShoeScript(table, `exports-${i}`, { shoeId, dealerId: 'dealer-7', accounts: 4, betChance: 0.7, maxRounds: 10, managementVoidChance: 0.2, correctionChance: 0.2 });
    if (s.actions.some((a) => a.kind === 'voidRound') && s.actions.some((a) => a.kind === 'correctResult')) return s;
  }
  throw new Error('no seed gave a void and a correction');
}

describe('exports for regulators: a bundle verifies with the standalone script alone (docs/reports.md §5)', () => {
  let h: LedgerHarness;
  let dir: string;
  let bundle: string;
  let publisher: AnchorPublisher;
  let from: string;
  let to: string;
  let shoeId: string;
  let token: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-exports-'));
    const anchorFile = join(dir, 'anchors.jsonl');
    const pair = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'anchor-private.pem'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(join(dir, 'anchor-public.pem'), pair.publicKey.export({ type: 'spki', format: 'pem' }));
    operatorKeyFile = join(dir, 'anchor-public.pem');
    // one key signs the checkpoints (the relay) and the bundle manifests (the API), as in production
    h = await startLedger({ env: { ANCHOR_FILE: anchorFile, ANCHOR_PUBLIC_KEY_FILE: operatorKeyFile, REPORT_SIGNING_KEY_FILE: join(dir, 'anchor-private.pem'), EXPORT_BATCH_ROWS: String(BATCH) } });
    await h.startRelay();
    await h.startProjector();
    publisher = new AnchorPublisher({
      databaseUrl: TEST_SERVICE_DATABASE_URLS.relay,
      kafka: null,
      topic: 'unused',
      anchorFile,
      signingKey: readSigningKey(join(dir, 'anchor-private.pem')),
      intervalMs: 3_600_000,
      logger: defaultLogger('anchors', 'silent'),
    });
    token = h.client.token('auditor', 'regulator-it');

    from = new Date(Date.now() - 1).toISOString();
    shoeId = runId('exports');
    const script = shoeWithDecisions(tables.find((t) => t.tableId === 'T-CLASSIC-01') ?? tables[0], shoeId);
    await runShoeScript(script, h.client);
    // a refusal (the rejection log) and an audited read (the access log) inside the period
    const refused = await fetch(`${h.baseUrl}/shoes/${shoeId}/burns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.client.token('table-device', 'device-x')}` },
      body: '{"cards":"nope"}',
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    await h.client.get('auditor', 'aud-1', `/settlements?shoeId=${shoeId}`);
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    const last = stored[stored.length - 1];
    // projected, published, and signed by a checkpoint
    const deadline = Date.now() + 90_000;
    let signedThrough = 0n;
    for (;;) {
      const applied = (await h.client.get('auditor', 'aud-1', `/projections/applied/${last.eventId}`)).applied;
      const signed = signedThrough >= BigInt(last.globalPosition);
      if (applied && signed) break;
      if (!signed) {
        const a = await publisher.anchorNow();
        if (a) signedThrough = BigInt(a.checkpoint.globalPosition);
      }
      if (Date.now() > deadline) throw new Error('the last event was not projected and anchored within 90 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    to = new Date(Date.now() + 1).toISOString();
    await new Promise((r) => setTimeout(r, 5));

    bundle = join(dir, 'bundle');
    const cli = await run(['--import', 'tsx', 'scripts/export.ts', '--from', from, '--to', to, '--out', bundle, '--api', h.baseUrl], { LEDGER_TOKEN: token });
    if (cli.code !== 0) throw new Error(`npm run export failed: ${cli.stderr}${cli.stdout}`);
  });

  afterAll(async () => {
    await publisher?.stop();
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes five files and a signed manifest: counts, SHA-256, header, receipts, the checkpoints; every export spans several batches', async () => {
    const m = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
    expect(m.format).toBe('baccarat-ledger-export/2');
    expect(m.signed.format).toBe('baccarat-ledger-export/2');
    expect(m.signed.period).toEqual({ from, to });
    expect(m.files).toBeUndefined();
    expect(readdirSync(bundle).sort()).toEqual(['access-log.jsonl', 'decisions.jsonl', 'events.jsonl', 'manifest.json', 'rejections.jsonl', 'settlements.jsonl']);
    expect(m.signed.files.map((f: { name: string }) => f.name)).toEqual(['events.jsonl', 'settlements.jsonl', 'decisions.jsonl', 'rejections.jsonl', 'access-log.jsonl']);
    for (const f of m.signed.files) {
      const bytes = readFileSync(join(bundle, f.name));
      expect(sha(bytes)).toBe(f.sha256);
      expect(f.header).toMatchObject({ report: `export.${f.kind}`, reportVersion: 1, period: { from, to }, noActivity: false, software: { name: 'baccarat-round-ledger' } });
      const lines = bytes.toString('utf8').trimEnd().split('\n');
      expect(JSON.parse(lines[0]).header).toEqual(f.header);
      expect(JSON.parse(lines[lines.length - 1])).toEqual({ trailer: { rows: f.rows } });
      expect(lines.length).toBe(f.rows + 2);
    }
    const rows = Object.fromEntries(m.signed.files.map((f: { kind: string; rows: number }) => [f.kind, f.rows]));
    expect(rows.events).toBeGreaterThan(3 * BATCH);
    expect(rows.settlements).toBeGreaterThan(BATCH);
    expect(rows.decisions).toBeGreaterThanOrEqual(2);
    expect(rows.rejections).toBeGreaterThanOrEqual(1);
    expect(rows['access-log']).toBeGreaterThanOrEqual(1);
    expect(m.signed.header).toMatchObject({ report: 'export.bundle', noActivity: false });
    expect(m.anchors.length).toBeGreaterThanOrEqual(1);
    expect(m.signed.anchors.map((a: { seq: number }) => a.seq)).toEqual(m.anchors.map((a: { checkpoint: { seq: number } }) => a.checkpoint.seq));
    expect(m.keyId).toMatch(/^ed25519:[0-9a-f]{16}$/);
    expect(m.signed.keyId).toBe(m.keyId);
    expect(m.publicKeys.map((k: { keyId: string }) => k.keyId)).toEqual([m.keyId]);
    // every file as the API recorded sending it: the receipts the manifest was signed from
    const receipts = await h.ds.query(`SELECT id::text AS id, kind, rows::int AS rows, bytes::int AS bytes, sha256 FROM export_receipts WHERE id = ANY($1::uuid[])`, [m.signed.files.map((f: { receipt: string }) => f.receipt)]);
    expect(receipts).toHaveLength(5);
    for (const f of m.signed.files) expect(receipts).toContainEqual({ id: f.receipt, kind: f.kind, rows: f.rows, bytes: f.bytes, sha256: f.sha256 });

    // the events file holds exactly the events of the exported positions, and every event of the shoe, as stored
    const events = readFileSync(join(bundle, 'events.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1, -1)
      .map((l) => JSON.parse(l));
    const [{ n }] = await h.ds.query(`SELECT count(*)::int AS n FROM events WHERE global_position BETWEEN $1 AND $2`, [m.signed.positions.first, m.signed.positions.through]);
    expect(events.length).toBe(n);
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    const byId = new Map(events.map((e) => [e.eventId, e]));
    for (const s of stored) expect(byId.get(s.eventId)).toEqual({ ...s });
    // every access of the export itself is in the access log with its row count
    const logged = await h.ds.query(`SELECT params->>'kind' AS kind, result_count FROM query_log WHERE actor_id = 'regulator-it' AND route = 'GET /exports/:kind' ORDER BY id`);
    expect(logged.slice(-5)).toEqual(m.signed.files.map((f: { kind: string; rows: number }) => ({ kind: f.kind, result_count: f.rows })));
  });

  it('verify.mjs accepts the bundle with the operator key: exit 0, a summary, the limits stated; without a key it refuses to run', async () => {
    const r = await verifyBundle(bundle);
    expect(r.stderr).toBe('');
    // checkpoint #1 of this spec's anchor file straddles the period: it also signs the streams of the specs before (a stated limit then)
    expect(r.stdout).toMatch(/^OK: the export verifies, within [23] stated limit\(s\): (STRADDLING_STREAMS, )?LOGS_NOT_ANCHORED, RULES_NOT_REPLAYED \(LIMIT lines above\)$/m);
    expect(r.stdout).toMatch(/^LIMIT LOGS_NOT_ANCHORED: /m);
    expect(r.stdout).toMatch(/events checked \d+ in \d+ streams; checkpoints \d+ \([1-9]\d* signed heads checked/);
    expect(r.code).toBe(0);
    const keyless = await verifyBundle(bundle, []);
    expect(keyless.stdout).toMatch(/^FIRST FAILURE: KEY_NOT_GIVEN: /m);
    expect(keyless.code).toBe(2);
    // a key lying in the bundle is no key: the bundle would vouch for itself
    const copy = copyOf(bundle, 'with-key');
    cpSync(operatorKeyFile, join(copy, 'key.pem'));
    const inside = await verifyBundle(copy, ['--key', join(copy, 'key.pem')]);
    expect(inside.stdout).toMatch(/^FIRST FAILURE: KEY_FROM_BUNDLE: /m);
    expect(inside.code).toBe(2);
  });

  it('one byte of one exported event changed: fails, naming the file and the event', async () => {
    const copy = copyOf(bundle, 'one-byte');
    const file = join(copy, 'events.jsonl');
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.includes('"type":"BetPlaced"') && l.includes(shoeId));
    const target = JSON.parse(lines[at]);
    const i = lines[at].indexOf('"stake":"') + '"stake":"'.length;
    lines[at] = lines[at].slice(0, i) + (lines[at][i] === '9' ? '8' : '9') + lines[at].slice(i + 1);
    writeFileSync(file, lines.join('\n'));
    expect(Buffer.byteLength(lines.join('\n'))).toBe(Buffer.byteLength(text));
    const r = await verifyBundle(copy);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FIRST FAILURE: FILE_HASH_MISMATCH: events\.jsonl/);
    expect(r.stdout).toContain(`FAIL EVENT_HASH_MISMATCH: event ${target.eventId}`);

    // the forger also fixes the manifest's SHA-256: its signature no longer holds
    rewriteEvents(copy, (rows) => rows);
    const fixed = await verifyBundle(copy);
    expect(fixed.code).toBe(1);
    expect(fixed.stdout).toMatch(/FIRST FAILURE: MANIFEST_SIGNATURE_INVALID/);
    // signed again with the key (an API over a rewritten database): the event's own hash still names it
    rewriteEvents(copy, (rows) => rows, 'signed');
    const signed = await verifyBundle(copy);
    expect(signed.code).toBe(1);
    expect(signed.stdout).toMatch(new RegExp(`FIRST FAILURE: EVENT_HASH_MISMATCH: event ${target.eventId}`));
  });

  it('an event rewritten with every later hash recomputed, the manifest fixed and signed again: the signed checkpoints catch it', async () => {
    const copy = copyOf(bundle, 'rehashed');
    let victim = '';
    rewriteEvents(
      copy,
      (rows) => {
        const streamId = `shoe-${shoeId}`;
        const at = rows.findIndex((e) => e.streamId === streamId && e.type === 'BetPlaced');
        victim = rows[at].eventId;
        rows[at].data = { ...rows[at].data, stake: String(BigInt(rows[at].data.stake) + 1n) };
        let prev = rows[at].prevHash;
        for (const e of rows.filter((x, j) => j >= at && x.streamId === streamId)) {
          e.prevHash = prev;
          e.hash = computeEventHash(e as Parameters<typeof computeEventHash>[0]);
          prev = e.hash;
        }
        return rows;
      },
      'signed',
    );
    const r = await verifyBundle(copy);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/EVENT_HASH_MISMATCH|CHAIN_BROKEN|FILE_HASH_MISMATCH|MANIFEST_/);
    expect(r.stdout).toMatch(new RegExp(`FIRST FAILURE: HEAD_MISMATCH: stream shoe-${shoeId} version \\d+`));
    expect(victim).not.toBe('');
  });

  it('a file cut short, an event removed from the middle or the end of a stream: fails', async () => {
    const cut = copyOf(bundle, 'cut');
    const file = join(cut, 'events.jsonl');
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 400));
    const r = await verifyBundle(cut);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FILE_HASH_MISMATCH: events\.jsonl/);

    const gap = copyOf(bundle, 'gap');
    let removed = 0;
    rewriteEvents(
      gap,
      (rows) => {
        const mine = rows.filter((e) => e.streamId === `shoe-${shoeId}`);
        removed = mine[Math.floor(mine.length / 2)].streamVersion;
        return rows.filter((e) => !(e.streamId === `shoe-${shoeId}` && e.streamVersion === removed));
      },
      'signed',
    );
    const g = await verifyBundle(gap);
    expect(g.code).toBe(1);
    expect(g.stdout).toContain(`FIRST FAILURE: STREAM_GAP: event`);
    expect(g.stdout).toContain(`expected version ${removed} of shoe-${shoeId}`);

    const tail = copyOf(bundle, 'tail');
    rewriteEvents(
      tail,
      (rows) => {
        const lastOfMine = rows.map((e) => e.streamId).lastIndexOf(`shoe-${shoeId}`);
        return rows.filter((_, j) => j !== lastOfMine);
      },
      'signed',
    );
    const t = await verifyBundle(tail);
    expect(t.code).toBe(1);
    expect(t.stdout).toMatch(new RegExp(`ANCHORED_VERSION_MISSING: stream shoe-${shoeId}`));
  });

  it('a CSV bundle verifies too; a forged checkpoint signature does not', async () => {
    const csv = join(dir, 'bundle-csv');
    const cli = await run(['--import', 'tsx', 'scripts/export.ts', '--from', from, '--to', to, '--out', csv, '--api', h.baseUrl, '--format', 'csv'], { LEDGER_TOKEN: token });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const r = await verifyBundle(csv);
    expect(r.stdout).toMatch(/^OK: the export verifies/m);
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(csv, 'manifest.json'), 'utf8'));
    expect(readFileSync(join(csv, 'events.csv'), 'utf8').split('\n')[0]).toBe(
      'globalPosition,eventId,type,schemaVersion,streamId,streamVersion,tableId,occurredAt,recordedAt,actorId,actorRole,correlationId,causationId,prevHash,hash,data',
    );
    const sig = m.anchors[m.anchors.length - 1].signature as string;
    m.anchors[m.anchors.length - 1].signature = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    writeFileSync(join(csv, 'manifest.json'), JSON.stringify(m));
    const forged = await verifyBundle(csv);
    expect(forged.code).toBe(1);
    expect(forged.stdout).toMatch(/ANCHOR_SIGNATURE_INVALID/);
  });

  it('the routes: CSV with the header in a response header, an empty period says no activity, a bad period is refused', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const res = await fetch(`${h.baseUrl}/exports/decisions?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&format=csv`, { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const header = JSON.parse(res.headers.get('ledger-report-header')!);
    expect(header).toMatchObject({ title: expect.any(String), report: 'export.decisions', noActivity: false, period: { from, to } });
    const body = await res.text();
    expect(body.trimEnd().split('\n').length).toBe(Number(res.headers.get('ledger-export-count')) + 1);

    const empty = await fetch(`${h.baseUrl}/exports/events?from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z`, { headers: auth });
    const lines = (await empty.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([{ header: expect.objectContaining({ noActivity: true, report: 'export.events' }), positions: { first: null, periodLast: null, through: null } }, { trailer: { rows: 0 } }]);

    const bad = await fetch(`${h.baseUrl}/exports/events?from=${encodeURIComponent(to)}&to=${encodeURIComponent(from)}`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('VALIDATION.FAILED');
    const missing = await fetch(`${h.baseUrl}/exports/events?from=yesterday`, { headers: auth });
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('VALIDATION.FAILED');
    const unknown = await fetch(`${h.baseUrl}/exports/bets?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, { headers: auth });
    expect(unknown.status).toBe(404);
    const device = await fetch(`${h.baseUrl}/exports/events?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, { headers: { authorization: `Bearer ${h.client.token('betting-platform', 'bp')}` } });
    expect(device.status).toBe(403);
  });

  it('GET /exports/manifest signs only what the API sent: one receipt of each kind, one period; an unknown receipt, a bad list, an incomplete bundle refused', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const period = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const receiptOf = async (kind: string, q = period) => {
      const res = await fetch(`${h.baseUrl}/exports/${kind}?${q}`, { headers: auth });
      await res.text();
      return res.headers.get('ledger-export-receipt')!;
    };
    const ids = [];
    for (const kind of ['events', 'settlements', 'decisions', 'rejections', 'access-log']) ids.push(await receiptOf(kind));
    expect(ids.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
    const manifest = (q: string) => fetch(`${h.baseUrl}/exports/manifest?receipts=${q}`, { headers: auth });
    const ok = await manifest(ids.join(','));
    expect(ok.status).toBe(200);
    const m = (await ok.json()) as { signed: { files: { receipt: string }[] } };
    expect(m.signed.files.map((f) => f.receipt)).toEqual(ids);
    const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;
    const unknown = await manifest([...ids.slice(1), '00000000-0000-4000-8000-000000000000'].join(','));
    expect([unknown.status, await code(unknown)]).toEqual([404, 'EXPORT.RECEIPT_NOT_FOUND']);
    const incomplete = await manifest(ids.slice(1).join(','));
    expect([incomplete.status, await code(incomplete)]).toEqual([422, 'EXPORT.BUNDLE_INCONSISTENT']);
    const twice = await manifest([...ids, await receiptOf('events')].join(','));
    expect([twice.status, await code(twice)]).toEqual([422, 'EXPORT.BUNDLE_INCONSISTENT']);
    const otherPeriod = await manifest([await receiptOf('events', `from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z`), ...ids.slice(1)].join(','));
    expect([otherPeriod.status, await code(otherPeriod)]).toEqual([422, 'EXPORT.BUNDLE_INCONSISTENT']);
    for (const bad of ['', 'nope', ids.join(';'), Array(11).fill(ids[0]).join(',')]) {
      const res = await manifest(encodeURIComponent(bad));
      expect([bad, res.status, await code(res)]).toEqual([bad, 400, 'VALIDATION.FAILED']);
    }
  });

  it('the reconciliation report carries the header (JSON body and response header), its rows unchanged', async () => {
    const r = await fetch(`${h.baseUrl}/reports/reconciliation?groupBy=shoe&shoeId=${shoeId}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await r.json()) as { header: unknown; items: unknown[] };
    expect(body.header).toMatchObject({ title: 'Reconciliation report', report: 'reconciliation', reportVersion: 1, filters: { groupBy: 'shoe', shoeId, format: 'json' }, noActivity: false });
    expect(JSON.parse(r.headers.get('ledger-report-header')!)).toEqual(body.header);
    expect(body.items).toHaveLength(1);
    const csv = await fetch(`${h.baseUrl}/reports/reconciliation?groupBy=shoe&shoeId=none-such&format=csv`, { headers: { authorization: `Bearer ${token}` } });
    expect(JSON.parse(csv.headers.get('ledger-report-header')!)).toMatchObject({ noActivity: true, filters: { format: 'csv' } });
  });
});
