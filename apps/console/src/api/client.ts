import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/**
 * The console's only way to the ledger: the API's own OpenAPI document (`docs/openapi.json`, written
 * by `npm run -s openapi:write`) generates `schema.d.ts` (`npm run -s console:types`), so every path,
 * parameter and response type here comes from the API, not from hand-written copies. Same origin:
 * the console is served by the API at `/console`, so calls go to `/tables`, `/shoes/...`.
 */
export const api = createClient<paths>({ baseUrl: '' });

let bearer: string | null = null;
let onUnauthorized: ((code: string) => void) | null = null;

/** Sets (or clears) the token every call carries and what to do on a 401 (end the session; given the API's error code). */
export function setBearer(token: string | null, unauthorized?: (code: string) => void): void {
  bearer = token;
  onUnauthorized = unauthorized ?? null;
}

/** The bearer token in use (for the live stream, which is not an openapi-fetch call). */
export function currentBearer(): string | null {
  return bearer;
}

const auth: Middleware = {
  onRequest({ request }) {
    if (bearer) request.headers.set('Authorization', `Bearer ${bearer}`);
    return request;
  },
  async onResponse({ response }) {
    if (response.status === 401 && onUnauthorized) {
      const handler = onUnauthorized;
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as Partial<ApiErrorBody> | null;
      handler(body?.error?.code ?? 'HTTP.401');
    }
    return response;
  },
};
api.use(auth);

/** The API's error body (`{ error: { code, message, details } }`, docs/errors.md). */
export interface ApiErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly details?: unknown };
}

/**
 * A refusal of the API, with its machine-readable `code` (e.g. `MANAGEMENT.SAME_APPROVER`) shown to
 * the user next to the message; `status` 0 when the API could not be reached.
 */
export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/**
 * Awaits an openapi-fetch call and returns its data, or throws {@link ConsoleApiError} with the
 * API's code. Usage: `const t = await unwrap(api.GET('/tables'))`.
 * @throws ConsoleApiError on any non-2xx answer or a network failure (code `UNREACHABLE`, status 0: not an API code)
 */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let r: { data?: T; error?: unknown; response: Response };
  try {
    r = await call;
  } catch (e) {
    throw new ConsoleApiError(0, 'UNREACHABLE', `the ledger API could not be reached (${(e as Error).message})`);
  }
  if (r.response.ok) return r.data as T;
  const body = r.error as Partial<ApiErrorBody> | undefined;
  const code = body?.error?.code ?? `HTTP.${r.response.status}`;
  const message = body?.error?.message ?? r.response.statusText ?? 'request failed';
  throw new ConsoleApiError(r.response.status, code, message, body?.error?.details);
}
