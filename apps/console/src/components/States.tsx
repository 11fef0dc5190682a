import type { ReactNode } from 'react';
import { ConsoleApiError } from '../api/client';

/** A loading state, announced to screen readers. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** An empty state: says what is missing and, when useful, what to do. */
export function Empty({ children }: { children: ReactNode }) {
  return <p className="state empty">{children}</p>;
}

/** An error from the API, with its machine-readable code (docs/errors.md). */
export function ErrorMessage({ error }: { error: unknown }) {
  const e = error instanceof ConsoleApiError ? error : null;
  return (
    <div className="error" role="alert">
      <strong>{e ? e.code : 'ERROR'}</strong> {e ? e.message : error instanceof Error ? error.message : String(error)}
      {e && e.status ? <span className="muted"> (HTTP {e.status})</span> : null}
    </div>
  );
}

/** Renders a TanStack Query's three states; `children` gets the data. */
export function QueryState<T>({ query, what, children }: { query: { isPending: boolean; error: unknown; data: T | undefined }; what: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading what={what} />;
  if (query.error) return <ErrorMessage error={query.error} />;
  return <>{children(query.data as T)}</>;
}
