import { useState, type SubmitEvent } from 'react';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { fetchFileWithHeaders } from '../api/fetch-file';
import { usePrincipal } from '../session';
import { ErrorMessage } from '../components/States';
import { gamingDayOf, zonedToIso, type GamingDayRule } from '../lib/zoned';
import { formatInstant } from '../lib/time';
import '../components/DataTable.css';

type Manifest = components['schemas']['ExportManifestResponse'];

/** The kinds of export, as `GET /exports/{kind}` names them (docs/reports.md §5). */
const KINDS = ['events', 'settlements', 'decisions', 'rejections', 'access-log'] as const;
type Kind = (typeof KINDS)[number];
type Format = 'jsonl' | 'csv';

/** A period asked for, as the API takes it (ISO-8601 instants). */
interface Period {
  readonly from: string;
  readonly to: string;
}

/** The last whole gaming day: from its start to the start of today's, as zone wall times for the inputs. */
function lastGamingDay(rule: GamingDayRule): { from: string; to: string } {
  const today = gamingDayOf(Date.now(), rule);
  const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  const hh = String(rule.cutoffHour).padStart(2, '0');
  return { from: `${yesterday}T${hh}:00`, to: `${today}T${hh}:00` };
}

/** Streams one export with the bearer token and saves it as `<kind>.<format>`; resolves its receipt (`Ledger-Export-Receipt`). */
async function downloadExport(kind: Kind, format: Format, p: Period, through?: string | null): Promise<string | null> {
  const q = new URLSearchParams({ from: p.from, to: p.to, format });
  if (through) q.set('through', through);
  const { blob, headers } = await fetchFileWithHeaders(`/exports/${kind}?${q.toString()}`);
  const { downloadBlob } = await import('../lib/export');
  downloadBlob(blob, `${kind}.${format}`, document);
  return headers.get('ledger-export-receipt');
}

/**
 * The bundle as `npm run export` makes it (docs/reports.md §5): where the events export ends
 * (`GET /exports/anchors`), the five exports of one period and format, then the manifest the API
 * signs from their receipts (`GET /exports/manifest`), saved as `manifest.json`.
 */
async function downloadBundle(format: Format, p: Period): Promise<Manifest> {
  const anchors = await unwrap(api.GET('/exports/anchors', { params: { query: { from: p.from, to: p.to } } }));
  const receipts: string[] = [];
  for (const kind of KINDS) {
    const receipt = await downloadExport(kind, format, p, kind === 'events' ? anchors.positions.through : null);
    if (receipt) receipts.push(receipt);
  }
  const manifest = await unwrap(api.GET('/exports/manifest', { params: { query: { receipts: receipts.join(',') } } }));
  const { downloadBlob } = await import('../lib/export');
  downloadBlob(new Blob([`${JSON.stringify(manifest, null, 2)}\n`], { type: 'application/json' }), 'manifest.json', document);
  return manifest;
}

/** The signed manifest of a bundle: its key, its period, and each file's rows, size and SHA-256. */
function ManifestView({ manifest }: { manifest: Manifest }) {
  const { gamingDay: rule } = usePrincipal();
  const s = manifest.signed;
  return (
    <section aria-labelledby="manifest-h" data-testid="manifest">
      <h2 id="manifest-h">The signed manifest</h2>
      <p>
        Signed by <code>{manifest.keyId}</code> at {formatInstant(s.signedAt, rule.timeZone)}; period {formatInstant(s.period.from, rule.timeZone)} to {formatInstant(s.period.to, rule.timeZone)}; {manifest.anchors.length} signed
        checkpoint(s).
      </p>
      <div className="scroll" role="region" aria-label="Files of the manifest" tabIndex={0}>
        <table className="data">
          <caption className="sr-only">Files of the manifest</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col" className="num">
                Rows
              </th>
              <th scope="col" className="num">
                Bytes
              </th>
              <th scope="col">SHA-256</th>
            </tr>
          </thead>
          <tbody>
            {s.files.map((f) => (
              <tr key={f.name} data-file={f.name}>
                <td>{f.name}</td>
                <td className="num">{f.rows}</td>
                <td className="num">{f.bytes}</td>
                <td>
                  <code className="wrap">{f.sha256}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** How a regulator makes and checks a bundle outside the console: `npm run export`, then `verify.mjs` with the operator's published key. */
function Instructions({ period, format }: { period: Period | null; format: Format }) {
  const from = period?.from ?? '<from>';
  const to = period?.to ?? '<to>';
  const out = `./export-${from.slice(0, 10)}`;
  return (
    <section aria-labelledby="verify-h">
      <h2 id="verify-h">Make and verify a bundle from a shell</h2>
      <p>
        The same bundle from the command line (docs/reports.md §5), with an auditor token and this API&apos;s address. <code>LEDGER_ENV=development</code> mints the token with the development secret, as the README does for the
        demo; elsewhere the token comes from your identity provider (or <code>JWT_SECRET</code> set as the API&apos;s).
      </p>
      <pre className="cmd" data-testid="export-command">
        <code>{`TOKEN=$(LEDGER_ENV=development npm run -s token -- --role auditor --sub regulator-it)
npm run -s export -- --from ${from} --to ${to} --out ${out} \\
  --api ${window.location.origin} --token "$TOKEN"${format === 'csv' ? ' --format csv' : ''}`}</code>
      </pre>
      <p>
        Check it with the operator&apos;s public key <strong>as the operator published it</strong> (never a key from the bundle): every file&apos;s SHA-256, size and rows against the signed manifest, the checkpoints and the hash
        chain of the events. Exit 0 prints <code>OK: the export verifies</code>.
      </p>
      <pre className="cmd" data-testid="verify-command">
        <code>{`node examples/verify-export/verify.mjs ${out} --key operator-public.pem`}</code>
      </pre>
      <p data-testid="demo-key">
        In the demo (<code>npm run demo</code>) the operator&apos;s public key is the anchor key the relay wrote: <code>.stack/anchors/anchor-public.pem</code> (docs/anchors.md §1), so{' '}
        <code>--key .stack/anchors/anchor-public.pem</code>.
      </p>
    </section>
  );
}

/** The period, kind and format, and the two actions: one export, or the bundle. */
function ExportForm({ onSubmit, busy, defaults }: { onSubmit: (e: SubmitEvent<HTMLFormElement>) => Promise<void>; busy: boolean; defaults: { from: string; to: string } }) {
  return (
    <form className="filters" onSubmit={(e) => void onSubmit(e)} aria-label="Export">
      <label>
        From <input type="datetime-local" name="from" defaultValue={defaults.from} required />
      </label>
      <label>
        To <input type="datetime-local" name="to" defaultValue={defaults.to} required />
      </label>
      <label>
        Kind{' '}
        <select name="kind" defaultValue="events">
          {KINDS.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
      </label>
      <label>
        Format{' '}
        <select name="format" defaultValue="jsonl">
          <option value="jsonl">JSONL</option>
          <option value="csv">CSV</option>
        </select>
      </label>
      <button type="submit" name="action" value="one" disabled={busy}>
        Download this export
      </button>
      <button type="submit" name="action" value="bundle" className="primary" disabled={busy}>
        Download the bundle (five exports and the signed manifest)
      </button>
    </form>
  );
}

/** `/exports`: pick a period, a kind and a format; download one export or the whole signed bundle; how to verify it. */
export function ExportsPage() {
  const { gamingDay: rule } = usePrincipal();
  const [defaults] = useState(() => lastGamingDay(rule));
  const [period, setPeriod] = useState<Period | null>(null);
  const [format, setFormat] = useState<Format>('jsonl');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [manifest, setManifest] = useState<Manifest | null>(null);

  async function submit(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const bundle = (e.nativeEvent as unknown as { submitter?: HTMLButtonElement }).submitter?.value === 'bundle';
    const from = zonedToIso(String(f.get('from')), rule.timeZone);
    const to = zonedToIso(String(f.get('to')), rule.timeZone);
    const fmt = f.get('format') === 'csv' ? 'csv' : 'jsonl';
    const kind = String(f.get('kind')) as Kind;
    setError(null);
    setDone(null);
    if (!from || !to) return setError(new Error('give the period: from and to, as times of the gaming day zone'));
    const p = { from, to };
    setPeriod(p);
    setFormat(fmt);
    setBusy(true);
    try {
      if (bundle) {
        setManifest(null);
        setManifest(await downloadBundle(fmt, p));
        setDone(`The bundle: five files and manifest.json (${fmt}).`);
      } else {
        const receipt = await downloadExport(kind, fmt, p);
        setDone(`${kind}.${fmt} downloaded${receipt ? ` (receipt ${receipt})` : ''}.`);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <h1>Exports for regulators</h1>
      <p className="muted">
        What the ledger recorded in a period, streamed by the API (docs/reports.md §5). Times are of the gaming day zone ({rule.timeZone}); <em>to</em> is exclusive. Export a period that has ended: a bundle&apos;s files must cover
        the same events.
      </p>
      <ExportForm onSubmit={submit} busy={busy} defaults={defaults} />
      {busy ? (
        <p className="state" role="status">
          Exporting…
        </p>
      ) : null}
      {done ? (
        <p role="status" data-testid="export-done">
          {done}
        </p>
      ) : null}
      {error ? <ErrorMessage error={error} /> : null}
      {manifest ? <ManifestView manifest={manifest} /> : null}
      <Instructions period={period} format={format} />
    </>
  );
}
