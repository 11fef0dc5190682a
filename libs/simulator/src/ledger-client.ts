import { hs256Key, mintToken, type SigningKey } from '@ledger/tokens';

/** Roles the simulator acts as. */
export type ClientRole = 'table-device' | 'betting-platform' | 'pit-manager' | 'auditor';

/** A non-2xx answer of the ledger API, with its stable error code. */
export class LedgerHttpError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    public readonly body: unknown,
    public readonly route: string,
  ) {
    super(`${route} → ${status} ${code}`);
    this.name = 'LedgerHttpError';
  }
}

/** Options of {@link LedgerClient}: what its tokens carry (docs/architecture.md §10). */
export interface LedgerClientOptions {
  /** The `tables` claim of its table-device tokens: the tables the simulated devices report for. Required to act as a device. */
  readonly deviceTables?: readonly string[];
  /** `iss` and `aud` the API expects (its `JWT_ISSUER`, `JWT_AUDIENCE`). @default baccarat-ledger, baccarat-ledger-api */
  readonly issuer?: string;
  readonly audience?: string;
  /** Lifetime of its tokens, in seconds (at most the API's `JWT_MAX_LIFETIME_SECONDS`). @default 43200 */
  readonly ttlSeconds?: number;
}

/**
 * A minimal HTTP client of the ledger API (Node's fetch), acting as the table device, the betting
 * platform, pit managers and an auditor with locally minted tokens (HS256 with the API's secret, or
 * a given signing key).
 */
export class LedgerClient {
  private readonly tokens = new Map<string, string>();
  private readonly signingKey: SigningKey;

  /**
   * @param baseUrl e.g. `http://127.0.0.1:3000` (loopback only)
   * @param secret the API's JWT secret (HS256), or the key to sign with
   * @param options the device tokens' tables, `iss`, `aud`, lifetime
   */
  constructor(
    public readonly baseUrl: string,
    secret: string | SigningKey,
    private readonly options: LedgerClientOptions = {},
  ) {
    this.signingKey = typeof secret === 'string' ? hs256Key(secret) : secret;
  }

  /**
   * A bearer token for `role` and subject `sub`, cached; a table-device token carries the
   * {@link LedgerClientOptions.deviceTables} (without them the API refuses it).
   */
  token(role: ClientRole, sub: string): string {
    const key = `${role}|${sub}`;
    let t = this.tokens.get(key);
    if (!t) {
      const tables = role === 'table-device' ? this.options.deviceTables : undefined;
      t = mintToken({ sub, role, tables }, this.signingKey, { issuer: this.options.issuer, audience: this.options.audience, ttlSeconds: this.options.ttlSeconds ?? 12 * 3600 });
      this.tokens.set(key, t);
    }
    return t;
  }

  /** POSTs JSON; resolves the parsed body of a 2xx answer. @throws LedgerHttpError otherwise */
  async post<T = any>(role: ClientRole, sub: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
    return this.request<T>('POST', role, sub, path, body, headers);
  }

  /** GETs JSON. @throws LedgerHttpError on a non-2xx answer */
  async get<T = any>(role: ClientRole, sub: string, path: string): Promise<T> {
    return this.request<T>('GET', role, sub, path, undefined, {});
  }

  private async request<T>(method: string, role: ClientRole, sub: string, path: string, body: unknown, headers: Record<string, string>): Promise<T> {
    const send = () =>
      fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token(role, sub)}`, ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    let res: Response;
    try {
      res = await send();
    } catch (e) {
      // a kept-alive socket the server closed meanwhile: retry once when the request is safe to repeat
      // (a GET, or a write carrying an Idempotency-Key, which the ledger answers the same way twice)
      if (method !== 'GET' && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')) throw e;
      res = await send();
    }
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : null;
    if (!res.ok) throw new LedgerHttpError(res.status, parsed?.error?.code ?? `HTTP.${res.status}`, parsed, `${method} ${path}`);
    return parsed as T;
  }
}
