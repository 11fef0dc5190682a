/**
 * PostgreSQL connection URLs with several hosts, as libpq reads them (docs/operations.md, "A primary
 * with a synchronous standby"): `postgres://user:pw@host1:5432,host2:5433/ledger?target_session_attrs=read-write`.
 * node-postgres reads one host only; `@ledger/infra` (`pgClientConfig`, `pgPoolConfig`) connects to
 * the first of these hosts that accepts the session `target_session_attrs` asks for. Pure functions
 * of their arguments: no I/O.
 */

/**
 * The values of libpq's `target_session_attrs`, what a session must be for a client to keep it:
 * - `any`: any server that accepts the connection (the default);
 * - `read-write`: one whose sessions accept writes (`transaction_read_only` off: not a standby, no
 *   `default_transaction_read_only`);
 * - `read-only`: the opposite of `read-write`;
 * - `primary`: a server not in recovery (not a standby);
 * - `standby`: a server in recovery;
 * - `prefer-standby`: a standby if one of the hosts is, else any.
 */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;

/** One of {@link TARGET_SESSION_ATTRS}. */
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

/** One server of a URL: a host name or address (IPv6 without brackets) and a TCP port. */
export interface PostgresHost {
  readonly host: string;
  /** 1..65535; 5432 when the URL gives none. */
  readonly port: number;
}

/** A PostgreSQL URL taken apart ({@link parsePostgresUrl}). */
export interface PostgresUrl {
  /** `postgres:` or `postgresql:`. */
  readonly protocol: string;
  /** `user:password` as written (percent-encoded), empty when the URL has none. */
  readonly userInfo: string;
  /** The servers, in the URL's order (at least one). */
  readonly hosts: readonly PostgresHost[];
  /** The path as written (`/ledger`), possibly empty. */
  readonly path: string;
  /** The query without `target_session_attrs` (`?` excluded), as written; empty when none. */
  readonly query: string;
  /** `target_session_attrs`; `any` when the URL has none. */
  readonly targetSessionAttrs: TargetSessionAttrs;
}

/** A URL {@link parsePostgresUrl} refuses; `message` says what is wrong (never the password). */
export class PostgresUrlError extends TypeError {
  constructor(problem: string) {
    super(`not a PostgreSQL URL: ${problem}`);
    this.name = 'PostgresUrlError';
  }
}

const URL_SHAPE = /^(postgres(?:ql)?:)\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?$/;
const HOST_NAME = /^[A-Za-z0-9._~%-]+$/;
const IPV6 = /^\[([0-9A-Fa-f:.]+)\]$/;
/** The port libpq and node-postgres use when a URL gives none. */
export const DEFAULT_POSTGRES_PORT = 5432;

/**
 * Takes a `postgres://` or `postgresql://` URL apart: login, every `host[:port]` of the
 * comma-separated list (IPv6 in brackets), path, query and `target_session_attrs`.
 * @param url e.g. `postgres://ledger_app:pw@127.0.0.1:55432,127.0.0.1:55433/ledger?target_session_attrs=read-write`
 * @throws PostgresUrlError naming the problem: another scheme, no host, an empty or malformed host,
 *   a port outside 1..65535, an unknown `target_session_attrs`, a fragment
 */
export function parsePostgresUrl(url: string): PostgresUrl {
  const m = URL_SHAPE.exec(url);
  if (!m) throw new PostgresUrlError(/^postgres(ql)?:\/\//.test(url) ? 'it has a fragment (#)' : 'it does not start with postgres:// or postgresql://');
  const [, protocol, authority, path, rawQuery = ''] = m;
  const at = authority.lastIndexOf('@');
  const userInfo = at >= 0 ? authority.slice(0, at) : '';
  const hostList = authority.slice(at + 1);
  if (hostList === '') throw new PostgresUrlError('it names no host');
  const hosts = hostList.split(',').map((entry, i) => parseHost(entry, i + 1));
  const params = rawQuery === '' ? [] : rawQuery.split('&');
  const attrs = params.filter((p) => p.split('=')[0] === 'target_session_attrs').map((p) => decodeURIComponent(p.slice(p.indexOf('=') + 1)));
  if (attrs.length > 1) throw new PostgresUrlError('target_session_attrs is given more than once');
  const targetSessionAttrs = attrs[0] ?? 'any';
  if (!isTargetSessionAttrs(targetSessionAttrs)) throw new PostgresUrlError(`target_session_attrs "${targetSessionAttrs}" is not one of ${TARGET_SESSION_ATTRS.join(', ')}`);
  const query = params.filter((p) => p.split('=')[0] !== 'target_session_attrs').join('&');
  return { protocol, userInfo, hosts, path, query, targetSessionAttrs };
}

/** Whether `value` is one of {@link TARGET_SESSION_ATTRS}. */
export function isTargetSessionAttrs(value: string): value is TargetSessionAttrs {
  return (TARGET_SESSION_ATTRS as readonly string[]).includes(value);
}

function parseHost(entry: string, n: number): PostgresHost {
  const where = `host ${n} ("${entry}")`;
  const v6 = /^(\[[^\]]*\])(?::(.*))?$/.exec(entry);
  const [hostPart, portPart] = v6 ? [v6[1], v6[2]] : splitOnce(entry, ':');
  if (hostPart === '') throw new PostgresUrlError(`${where} is empty`);
  const ip6 = IPV6.exec(hostPart);
  if (!ip6 && !HOST_NAME.test(hostPart)) throw new PostgresUrlError(`${where} is not a host name or address`);
  const port = portPart === undefined ? DEFAULT_POSTGRES_PORT : /^\d{1,5}$/.test(portPart) ? Number(portPart) : NaN;
  if (!(port >= 1 && port <= 65_535)) throw new PostgresUrlError(`${where} has no valid port (1..65535)`);
  return { host: ip6 ? ip6[1] : decodeURIComponent(hostPart), port };
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

/** `host:port` of one server, an IPv6 address in brackets. */
export function hostLabel(h: PostgresHost): string {
  return `${h.host.includes(':') ? `[${h.host}]` : h.host}:${h.port}`;
}

/**
 * The URL back as a string, optionally with other hosts or another login; `target_session_attrs`
 * is written only when it is not `any`.
 * @param parts what {@link parsePostgresUrl} returned
 * @param changes `hosts` to put instead, `userInfo` (percent-encoded `user:password`) to put instead,
 *   `withTargetSessionAttrs: false` to leave `target_session_attrs` out (what node-postgres gets)
 */
export function formatPostgresUrl(parts: PostgresUrl, changes: { hosts?: readonly PostgresHost[]; userInfo?: string; withTargetSessionAttrs?: boolean } = {}): string {
  const hosts = (changes.hosts ?? parts.hosts).map(hostLabel).join(',');
  const userInfo = changes.userInfo ?? parts.userInfo;
  const params = [parts.query, changes.withTargetSessionAttrs !== false && parts.targetSessionAttrs !== 'any' ? `target_session_attrs=${parts.targetSessionAttrs}` : ''].filter(Boolean);
  return `${parts.protocol}//${userInfo ? `${userInfo}@` : ''}${hosts}${parts.path}${params.length ? `?${params.join('&')}` : ''}`;
}

/**
 * Whether `url` names several hosts (a comma in the part between `//` and the path, after the
 * login): what node-postgres and the WHATWG URL parser cannot read.
 */
export function hasHostList(url: string): boolean {
  const authority = url.slice(url.indexOf('//') + 2).split(/[/?#]/, 1)[0];
  return authority.slice(authority.lastIndexOf('@') + 1).includes(',');
}

/**
 * Whether node-postgres can take `url` as it is: one host and no `target_session_attrs` — the URLs
 * of a single server, which connect exactly as they always did.
 */
export function isPlainPostgresUrl(url: string): boolean {
  return !hasHostList(url) && !/(^|&)target_session_attrs=/.test(url.split('?')[1] ?? '');
}

/**
 * What is wrong with `raw` as a connection URL of the ledger's settings (`DATABASE_URL` and the
 * others), or `undefined` when nothing is. A one-host URL must be a `postgres:` or `postgresql:`
 * URL (the WHATWG parser's, as always) whose `target_session_attrs`, if any, is one of
 * {@link TARGET_SESSION_ATTRS}; a URL with several hosts must pass {@link parsePostgresUrl}.
 */
export function postgresUrlProblem(raw: string): string | undefined {
  if (hasHostList(raw)) {
    try {
      parsePostgresUrl(raw);
      return undefined;
    } catch (e) {
      return (e as Error).message.replace(/^not a PostgreSQL URL: /, '');
    }
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return 'it does not start with postgres:// or postgresql://';
  const attrs = u.searchParams.getAll('target_session_attrs');
  if (attrs.length > 1) return 'target_session_attrs is given more than once';
  return attrs.length === 0 || isTargetSessionAttrs(attrs[0]) ? undefined : `target_session_attrs "${attrs[0]}" is not one of ${TARGET_SESSION_ATTRS.join(', ')}`;
}
