import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Client } from 'pg';
import { formatPostgresUrl, hostLabel, isPlainPostgresUrl, parsePostgresUrl, type PostgresHost, type PostgresUrl, type TargetSessionAttrs } from '@ledger/config';

/**
 * Multi-host connection URLs for node-postgres (docs/operations.md, "A primary with a synchronous
 * standby"): libpq's `postgres://u:p@h1:p1,h2:p2/db?target_session_attrs=read-write`, which `pg`
 * cannot read, becomes the options of one `pg` Client or Pool whose every new connection goes to
 * the first host, in the URL's order, that accepts it and gives the session `target_session_attrs`
 * asks for. After a failover (the primary lost, the standby promoted) new connections thus reach
 * the new primary; a pool recovers once it has discarded its broken connections.
 *
 * How: `pg`'s `stream` option (a function returning the socket a connection speaks over). The
 * connection string handed to `pg` names the first host only (login, database and parameters
 * unchanged); the socket ignores the host and port `pg` asks it to connect to and, before it
 * connects, asks each host in turn with a short-lived `pg` Client of its own (the same login:
 * `SELECT pg_is_in_recovery(), current_setting('transaction_read_only')`), then connects to the
 * first that fits. The whole choice stays within the connection's own connect timeout
 * (`connectionTimeoutMillis`, which destroys the socket when it expires). Every connection thus
 * costs one extra short session per host asked; pools keep their connections, so this is paid once
 * per pooled connection. A server that changes role between the question and the connection (a
 * promotion within milliseconds) is not noticed until the next connection.
 */

/** What the socket needs to choose a host. */
export interface HostSelection {
  /** The URL taken apart ({@link parsePostgresUrl}). */
  readonly url: PostgresUrl;
  /** Longest the whole choice may take, ms (the connection's connect timeout). */
  readonly connectTimeoutMs: number;
}

/** What a host said about its sessions. */
export interface SessionState {
  /** `pg_is_in_recovery()`: a standby. */
  readonly inRecovery: boolean;
  /** `transaction_read_only` of a new session. */
  readonly readOnly: boolean;
}

/**
 * Whether a session in `state` satisfies `attrs` (libpq's rules; `prefer-standby` accepts any
 * server here: {@link passesOf} asks for standbys first).
 */
export function satisfies(attrs: TargetSessionAttrs, state: SessionState): boolean {
  switch (attrs) {
    case 'read-write':
      return !state.readOnly;
    case 'read-only':
      return state.readOnly;
    case 'primary':
      return !state.inRecovery;
    case 'standby':
      return state.inRecovery;
    default:
      return true;
  }
}

/** The rounds over the hosts: `prefer-standby` first looks for a standby, then takes any server; the others one round. */
export function passesOf(attrs: TargetSessionAttrs): readonly TargetSessionAttrs[] {
  return attrs === 'prefer-standby' ? ['standby', 'any'] : [attrs];
}

/**
 * Asks one host what its sessions are, over a connection of its own that is closed at once.
 * @param url the URL of that host alone (login, database, parameters)
 * @param timeoutMs connect and query timeout
 * @throws the connection's error (refused, authentication, timeout)
 */
export async function askHost(url: string, timeoutMs: number): Promise<SessionState> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: 'ledger-host-selection' });
  c.on('error', () => undefined);
  try {
    await c.connect();
    const r = await c.query<{ in_recovery: boolean; read_only: string }>("SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only");
    return { inRecovery: r.rows[0].in_recovery, readOnly: r.rows[0].read_only === 'on' };
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** No host of a multi-host URL gave the session `target_session_attrs` asks for, within the connect timeout (the start-up check counts it as unreachable). */
export class NoSuitableHostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoSuitableHostError';
  }
}

/**
 * A socket that connects to the host {@link chooseHost} chooses, whatever host and port `pg` asks
 * for; when none fits it is destroyed with an error naming every host and why it was passed over.
 */
class HostSelectingSocket extends Socket {
  constructor(private readonly selection: HostSelection) {
    super();
  }

  override connect(..._ignored: unknown[]): this {
    chooseHost(this.selection, () => this.destroyed).then(
      (h) => {
        if (h && !this.destroyed) super.connect(h.port, h.host);
      },
      (e: Error) => this.destroy(e),
    );
    return this;
  }
}

/**
 * The first host of `selection.url`, in order, whose sessions satisfy its `target_session_attrs`
 * (for `prefer-standby`: the first standby, else the first that answers).
 * @param cancelled polled between hosts: once true, the choice stops and resolves `null`
 * @throws NoSuitableHostError `no host of <hosts> gave a <attrs> session (<host>: <why>; …)` when none fits in time
 */
export async function chooseHost(selection: HostSelection, cancelled: () => boolean = () => false): Promise<PostgresHost | null> {
  const { url, connectTimeoutMs } = selection;
  const deadline = Date.now() + connectTimeoutMs;
  const why = new Map<string, string>();
  for (const pass of passesOf(url.targetSessionAttrs)) {
    for (const h of url.hosts) {
      const left = deadline - Date.now();
      if (cancelled()) return null;
      if (left <= 0) break;
      try {
        const state = await askHost(formatPostgresUrl(url, { hosts: [h], withTargetSessionAttrs: false }), left);
        if (satisfies(pass, state)) return h;
        why.set(hostLabel(h), state.inRecovery ? 'a standby' : state.readOnly ? 'read-only' : 'read-write');
      } catch (e) {
        why.set(hostLabel(h), (e as Error).message);
      }
    }
  }
  const reasons = url.hosts.map((h) => `${hostLabel(h)}: ${why.get(hostLabel(h)) ?? 'not asked in time'}`);
  throw new NoSuitableHostError(`no host of ${url.hosts.map(hostLabel).join(',')} gave a ${url.targetSessionAttrs} session within ${connectTimeoutMs} ms (${reasons.join('; ')})`);
}

/**
 * What `pg` gets for `url`: a plain one-host URL as it is (nothing else: it connects as it always
 * did); otherwise the URL of its first host without `target_session_attrs` (for the login, database
 * and parameters) and a `stream` that chooses the host ({@link chooseHost}).
 * @param connectTimeoutMs the connection's connect timeout, ms (bounds the choice)
 * @throws PostgresUrlError when `url` is not a PostgreSQL URL
 */
export function pgConnectionOptions(url: string, connectTimeoutMs: number): { connectionString: string; stream?: () => Duplex } {
  if (isPlainPostgresUrl(url)) return { connectionString: url };
  const parsed = parsePostgresUrl(url);
  const selection: HostSelection = { url: parsed, connectTimeoutMs };
  return { connectionString: formatPostgresUrl(parsed, { hosts: [parsed.hosts[0]], withTargetSessionAttrs: false }), stream: () => new HostSelectingSocket(selection) };
}
