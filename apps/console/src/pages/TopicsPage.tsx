import { useMemo, type ReactNode } from 'react';
import { Markdown } from '../components/Markdown';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ErrorMessage, QueryState } from '../components/States';
import { SchemaView } from '../components/SchemaView';
import { forRenderer } from '../lib/asyncapi';
import '../components/DataTable.css';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A JSON Schema of a message part: AsyncAPI 3's multi-format `{ schemaFormat, schema }` or the schema itself. */
function schemaOf(v: unknown): Obj | null {
  const o = obj(v);
  if (!Object.keys(o).length) return null;
  return o.schemaFormat !== undefined && o.schema !== undefined ? obj(o.schema) : o;
}

/** Text of the document (descriptions are CommonMark): rendered as React elements, never as HTML. */
function Prose({ text }: { text: unknown }) {
  const t = str(text);
  return t ? <Markdown text={t} /> : null;
}

function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json" aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/**
 * Topics (`/topics`, for analytics consumers): the ledger's AsyncAPI 3 document (`GET /asyncapi`,
 * docs/asyncapi/asyncapi.yaml with its schema files inlined by the API) rendered by the console
 * itself — info and servers, then every channel (Kafka topic) with its address, description and
 * bindings, the operations that send or receive on it, and each message with its content type,
 * correlation id, headers and payload schemas (components/SchemaView.tsx) and examples.
 *
 * Why not @asyncapi/react-component: its ES module build imports `@asyncapi/parser`'s Node entry
 * (`fs`, `util.promisify`), which Vite cannot bundle for the browser; its prebuilt standalone
 * bundles (with and without the parser) render in Chromium, but both compile JSON-Schema validators
 * (ajv, Spectral rulesets) with `new Function` when loaded, which the console's
 * Content-Security-Policy (`script-src 'self'`, no `'unsafe-eval'`, set by the API) refuses. The
 * console keeps its CSP; the document needs no validation here (the API's tests check it).
 */
export function TopicsPage() {
  const doc = useQuery({ queryKey: ['asyncapi'], queryFn: () => unwrap(api.GET('/asyncapi')), staleTime: 60_000 });
  return (
    <section aria-labelledby="topics-h">
      <h1 id="topics-h">Topics</h1>
      <QueryState query={doc} what="the AsyncAPI document">
        {(d) => <AsyncApiDocument document={d} />}
      </QueryState>
    </section>
  );
}

function AsyncApiDocument({ document: raw }: { document: unknown }) {
  const resolved = useMemo(() => {
    try {
      return { doc: forRenderer(raw) };
    } catch (e) {
      return { error: e };
    }
  }, [raw]);
  if ('error' in resolved) return <ErrorMessage error={resolved.error} />;
  const d = resolved.doc;
  // operations name their channel by a local ref (`#/channels/<id>`): matched on the document as sent
  const channelOf = (opId: string): string | null => {
    const ref = obj(obj(obj(obj(raw).operations)[opId]).channel).$ref;
    return typeof ref === 'string' && ref.startsWith('#/channels/') ? decodeURIComponent(ref.slice('#/channels/'.length)).replace(/~1/g, '/').replace(/~0/g, '~') : null;
  };
  const info = obj(d.info);
  const channels = Object.entries(obj(d.channels));
  const operations = Object.entries(obj(d.operations));
  const servers = Object.entries(obj(d.servers));
  return (
    <div data-testid="asyncapi">
      <div className="panel">
        <p style={{ marginTop: 0 }}>
          <strong>{str(info.title) ?? 'AsyncAPI document'}</strong> · version {str(info.version) ?? '–'} · AsyncAPI {str(d.asyncapi)}
          {str(d.defaultContentType) ? ` · default content type ${String(d.defaultContentType)}` : ''}
        </p>
        {str(info.description) ? (
          <details>
            <summary>About these topics (keys, partitions, order, CloudEvents headers, signatures)</summary>
            <Markdown text={String(info.description)} headingBase={3} />
          </details>
        ) : null}
        {servers.length ? (
          <>
            <h2>Servers</h2>
            <ul>
              {servers.map(([name, s]) => (
                <li key={name}>
                  <strong>{name}</strong>: <code>{str(obj(s).host)}</code> ({str(obj(s).protocol)} {str(obj(s).protocolVersion)}) — {str(obj(s).description)}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </div>
      <nav aria-label="Channels">
        <h2>Channels</h2>
        <ul>
          {channels.map(([id, c]) => (
            <li key={id}>
              <a href={`#channel-${id}`}>{str(obj(c).title) ?? id}</a> — <code>{str(obj(c).address) ?? id}</code>
            </li>
          ))}
        </ul>
      </nav>
      {channels.map(([id, c]) => (
        <Channel key={id} id={id} channel={obj(c)} operations={operations.filter(([oid]) => channelOf(oid) === id).map(([oid, o]) => [oid, obj(o)] as const)} />
      ))}
    </div>
  );
}

function Channel({ id, channel: c, operations }: { id: string; channel: Obj; operations: readonly (readonly [string, Obj])[] }) {
  const messages = Object.entries(obj(c.messages));
  return (
    <section className="decision" id={`channel-${id}`} aria-labelledby={`channel-${id}-h`} style={{ marginTop: 16 }} data-testid={`channel-${id}`}>
      <h2 id={`channel-${id}-h`} style={{ marginTop: 0 }}>
        {str(c.title) ?? id} <code>{str(c.address) ?? id}</code>
      </h2>
      {str(c.summary) ? <p className="muted">{String(c.summary)}</p> : null}
      <Prose text={c.description} />
      {list(c.tags).length ? (
        <p>
          Tags:{' '}
          {list(c.tags)
            .map((t) => str(obj(t).name))
            .filter(Boolean)
            .join(', ')}
        </p>
      ) : null}
      <h3>Operations</h3>
      {operations.length ? (
        <ul>
          {operations.map(([oid, o]) => (
            <li key={oid}>
              <span className={`badge ${o.action === 'send' ? 'resulted' : 'pending'}`}>{String(o.action ?? '?').toUpperCase()}</span> <strong>{str(o.title) ?? oid}</strong> <code className="muted">{oid}</code>
              {str(o.summary) ? <> — {String(o.summary)}</> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No operation names this channel.</p>
      )}
      {Object.keys(obj(c.bindings)).length ? (
        <details>
          <summary>Bindings ({Object.keys(obj(c.bindings)).join(', ')})</summary>
          <Json value={c.bindings} label={`Bindings of ${id}`} />
        </details>
      ) : null}
      {messages.map(([mid, m]) => (
        <Message key={mid} id={mid} message={obj(m)} />
      ))}
    </section>
  );
}

function Message({ id, message: m }: { id: string; message: Obj }) {
  const payload = schemaOf(m.payload);
  const headers = schemaOf(m.headers);
  const examples = list(m.examples);
  const part = (title: string, body: ReactNode, open = false) => (
    <details open={open}>
      <summary>{title}</summary>
      {body}
    </details>
  );
  return (
    <div className="panel" style={{ marginTop: 8 }}>
      <h3 style={{ marginTop: 0 }}>
        Message {str(m.title) ?? str(m.name) ?? id} <code className="muted">{str(m.name) ?? id}</code>
      </h3>
      {str(m.summary) ? <p>{String(m.summary)}</p> : null}
      <Prose text={m.description} />
      <p className="muted">
        Content type {str(m.contentType) ?? 'the default'}
        {obj(m.correlationId).location ? (
          <>
            {' '}
            · correlation id at <code>{String(obj(m.correlationId).location)}</code> ({str(obj(m.correlationId).description)})
          </>
        ) : null}
      </p>
      {payload ? part('Payload schema', <SchemaView schema={payload} name="payload" />, true) : null}
      {headers ? part('Headers schema', <SchemaView schema={headers} name="headers" />) : null}
      {examples.length
        ? part(
            `Examples (${examples.length})`,
            examples.map((x, i) => (
              <div key={i}>
                <p>
                  <strong>{str(obj(x).name) ?? `Example ${i + 1}`}</strong> {str(obj(x).summary)}
                </p>
                <Json value={{ headers: obj(x).headers, payload: obj(x).payload }} label={`Example ${i + 1} of ${id}`} />
              </div>
            )),
          )
        : null}
    </div>
  );
}
