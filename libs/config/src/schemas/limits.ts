import { isIP } from 'node:net';
import { IntVar, TextVar, UrlVar } from '../env-var';
import type { EnvClass } from './common';

/** Express's names of address ranges a `trust proxy` list may hold (proxy-addr). */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One item of a `TRUST_PROXY` list: a name of {@link TRUST_PROXY_NAMES}, an IP address, or an IP address / prefix length (CIDR). */
export function isTrustProxyItem(item: string): boolean {
  if (TRUST_PROXY_NAMES.has(item)) return true;
  const [address, prefix, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * The value Express's `trust proxy` setting takes for a valid `TRUST_PROXY` (docs/architecture.md
 * §10): a hop count (`1`: the first proxy in front of the API; `0`: none) as a number, else the
 * list of trusted proxies' addresses, CIDR blocks and range names.
 * @throws Error on a value {@link isTrustProxy} refuses (the configuration refuses it first)
 */
export function trustProxyValue(raw: string): number | string[] {
  if (/^\d{1,2}$/.test(raw.trim())) return Number(raw.trim());
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0 || !items.every(isTrustProxyItem)) throw new Error(`TRUST_PROXY: not a hop count nor a list of addresses, CIDR blocks, loopback, linklocal or uniquelocal: ${raw}`);
  return items;
}

/** Whether `raw` is a valid `TRUST_PROXY`: a hop count 0..99, or a comma list of {@link isTrustProxyItem}. */
export function isTrustProxy(raw: string): boolean {
  try {
    trustProxyValue(raw);
    return true;
  } catch {
    return false;
  }
}

/**
 * The API's limits across several instances (docs/architecture.md §10, "Limits at the edge";
 * docs/operations.md, "Several API instances"): where they count, and whose address a request
 * counts against behind a load balancer.
 */
export function WithSharedLimits<B extends EnvClass>(Base: B) {
  class SharedLimitsEnv extends Base {
    /**
     * A Redis every API instance shares (`redis://[:password@]host:port[/db]`, `rediss://` for TLS):
     * when set, the rate budgets, the heavy-read slots, the live-stream places and the refusal log's
     * bytes per minute count there, one budget for all instances; when Redis does not answer, a
     * request they count is refused (503 `LIMITS.UNAVAILABLE`), never let through unlimited. Unset:
     * they count in each process's memory (one API instance). The bets batches' byte budget is
     * always per process. The API logs which at start.
     */
    @UrlVar(['redis:', 'rediss:'], { optional: true, secret: true })
    LIMITS_REDIS_URL?: string;

    /**
     * Prefix of every key the limits write in `LIMITS_REDIS_URL`'s Redis (instances of one ledger share it; another ledger on the same Redis takes another).
     * @default ledger:limits:
     */
    @TextVar(/^[A-Za-z0-9:_.{}-]{1,64}$/, 'a key prefix: 1..64 characters of A-Z a-z 0-9 : _ . { } -')
    LIMITS_REDIS_PREFIX: string = 'ledger:limits:';

    /**
     * How long a heavy-read slot or live-stream place held in Redis outlives its last renewal, in ms:
     * an instance renews its places every third of it, so the places of an instance that died are
     * free again at most this long after.
     * @default 30000
     */
    @IntVar(300, 600_000, 'ms')
    LIMITS_LEASE_MS: number = 30_000;

    /**
     * Longest wait for an answer of `LIMITS_REDIS_URL`'s Redis, in ms; past it the request is refused (503 `LIMITS.UNAVAILABLE`).
     * @default 1000
     */
    @IntVar(50, 60_000, 'ms')
    LIMITS_REDIS_TIMEOUT_MS: number = 1000;

    /**
     * Express's `trust proxy`: which proxies' `X-Forwarded-For` gives a request's address (`req.ip`,
     * what the per-address rate budget and the refusal log count against). Unset: none (the socket's
     * address). `loopback`, `linklocal`, `uniquelocal`, addresses and CIDR blocks, comma-separated
     * (e.g. `10.0.0.0/8,loopback`): the address is the first one from the right not in the list; a
     * hop count `n`: the n-th from the right. Set it to the load balancers' addresses, never wider.
     */
    @TextVar(/^[0-9A-Za-z.:/, ]{1,1000}$/, 'a hop count 0..99, or a comma list of IP addresses, CIDR blocks, loopback, linklocal, uniquelocal', { optional: true, check: isTrustProxy })
    TRUST_PROXY?: string;
  }
  return SharedLimitsEnv;
}
