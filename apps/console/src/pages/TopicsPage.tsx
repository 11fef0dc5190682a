import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ErrorMessage, QueryState } from '../components/States';
import '@asyncapi/react-component/styles/default.min.css';
import '../components/DataTable.css';

/**
 * Topics (`/topics`, for analytics consumers): the ledger's AsyncAPI document (`GET /asyncapi`, the
 * document of docs/asyncapi with its file `$ref`s inlined) rendered by @asyncapi/react-component —
 * its prebuilt standalone browser bundle (types/asyncapi-standalone.d.ts says why), loaded on
 * demand as its own chunk, rendering channels, operations, messages and payload schemas.
 */
export function TopicsPage() {
  const doc = useQuery({ queryKey: ['asyncapi'], queryFn: () => unwrap(api.GET('/asyncapi')), staleTime: 60_000 });
  return (
    <section aria-labelledby="topics-h">
      <h1 id="topics-h">Topics</h1>
      <p className="muted">The Kafka topics the ledger publishes: channels, operations, messages and their payload schemas (AsyncAPI).</p>
      <QueryState query={doc} what="the AsyncAPI document">
        {(d) => <AsyncApiView document={d} />}
      </QueryState>
    </section>
  );
}

function AsyncApiView({ document: d }: { document: unknown }) {
  const host = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | Error>('loading');
  useEffect(() => {
    let gone = false;
    import('@asyncapi/react-component/browser/standalone')
      .then((m) => {
        if (gone || !host.current) return;
        const standalone = (m.default ?? m) as typeof m.default;
        standalone.render({ schema: d, config: { show: { sidebar: false, errors: true }, expand: { messageExamples: false } } }, host.current);
        setState('ready');
      })
      .catch((e: unknown) => !gone && setState(e instanceof Error ? e : new Error(String(e))));
    return () => {
      gone = true;
    };
  }, [d]);
  return (
    <>
      {state === 'loading' ? (
        <p className="state" role="status">
          Loading the AsyncAPI viewer…
        </p>
      ) : null}
      {state instanceof Error ? <ErrorMessage error={state} /> : null}
      <div ref={host} className="asyncapi-host" data-testid="asyncapi" />
    </>
  );
}
