import { ConsoleApiError, currentBearer } from './client';

/** A file the API answers (CSV, raw bytes, an export) with the bearer token, and its response headers. */
export interface FetchedFile {
  readonly blob: Blob;
  readonly headers: Headers;
}

/**
 * Fetches a non-JSON answer of the API (a CSV, a close's raw bytes, an export stream) with the
 * bearer token; the API's refusal is raised as a {@link ConsoleApiError} with its code.
 * @throws ConsoleApiError on a non-2xx answer, or `UNREACHABLE` (status 0) on a network failure
 */
export async function fetchFileWithHeaders(path: string): Promise<FetchedFile> {
  let res: Response;
  try {
    const token = currentBearer();
    res = await fetch(path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  } catch (e) {
    throw new ConsoleApiError(0, 'UNREACHABLE', `the ledger API could not be reached (${(e as Error).message})`);
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
    throw new ConsoleApiError(res.status, body?.error?.code ?? `HTTP.${res.status}`, body?.error?.message ?? res.statusText);
  }
  return { blob: await res.blob(), headers: res.headers };
}

/** {@link fetchFileWithHeaders}, the bytes only. */
export async function fetchFile(path: string): Promise<Blob> {
  return (await fetchFileWithHeaders(path)).blob;
}
