import { IntVar } from '../env-var';
import type { EnvClass } from './common';

/**
 * The API's limits at the HTTP edge (docs/architecture.md §10, "Limits at the edge";
 * docs/guarantees.md §12): what a refusal may add to the rejection log, the request rates per
 * caller and per address, the body sizes ({@link WithHeavyReads}: the heavy reads). Every limit
 * is on in production; the tests raise them, never switch them off.
 */
export function WithEdgeLimits<B extends EnvClass>(Base: B) {
  class EdgeLimitsEnv extends Base {
    /**
     * Largest raw payload a refusal of an unauthenticated or malformed-transport request keeps in
     * the `rejections` table, in bytes of JSON; a larger one is kept as its first bytes, its
     * length and its SHA-256.
     * @default 2048
     */
    @IntVar(0, 1_048_576, 'bytes')
    REFUSAL_PAYLOAD_MAX_BYTES: number = 2048;

    /**
     * Bytes of the `rejections` table the refusals of unauthenticated or malformed-transport
     * requests of one caller (token subject, else remote address) may take per minute; beyond it
     * a refusal is only counted (`ledger_refusals_total`, `ledger_rejections_dropped_total`).
     * Refusals of authenticated requests by the domain or the role checks keep their full row (a payload over 64 KiB as its length, SHA-256 and head).
     * @default 65536
     */
    @IntVar(0, 1_073_741_824, 'bytes')
    REFUSAL_LOG_BYTES_PER_MINUTE: number = 65_536;

    /**
     * The window of the rate limits below, in ms (fixed window; a caller over a limit waits the
     * rest of the window: 429 `RATE.LIMITED` with `Retry-After`).
     * @default 60000
     */
    @IntVar(1_000, 3_600_000, 'ms')
    RATE_LIMIT_WINDOW_MS: number = 60_000;

    /**
     * Requests one remote address may make per window, with a token or without, to any route but
     * `/health` and `/metrics`. Above the largest role budget, so that one betting platform behind
     * one address is held by its own budget. Behind a load balancer set `TRUST_PROXY`, else every
     * request counts against the balancer's address.
     * @default 12000
     */
    @IntVar(1, 100_000_000, 'requests')
    RATE_LIMIT_PER_ADDRESS: number = 12_000;

    /**
     * Requests one table device (token subject) may make per window.
     * @default 600
     */
    @IntVar(1, 100_000_000, 'requests')
    RATE_LIMIT_TABLE_DEVICE: number = 600;

    /**
     * Requests one betting platform (token subject) may make per window.
     * @default 6000
     */
    @IntVar(1, 100_000_000, 'requests')
    RATE_LIMIT_BETTING_PLATFORM: number = 6000;

    /**
     * Requests one pit manager (token subject) may make per window.
     * @default 300
     */
    @IntVar(1, 100_000_000, 'requests')
    RATE_LIMIT_PIT_MANAGER: number = 300;

    /**
     * Requests one auditor (token subject) may make per window.
     * @default 300
     */
    @IntVar(1, 100_000_000, 'requests')
    RATE_LIMIT_AUDITOR: number = 300;

    /**
     * Largest body a request without a valid bearer token may send, in bytes; a larger declared
     * `Content-Length` (or a body without one) is refused (413 `REQUEST.TOO_LARGE`) before it is read.
     * @default 4096
     */
    @IntVar(0, 5_242_880, 'bytes')
    BODY_LIMIT_UNAUTHENTICATED_BYTES: number = 4096;

    /**
     * Largest body of an authenticated write (every route but the bets batch), in bytes.
     * @default 65536
     */
    @IntVar(1024, 5_242_880, 'bytes')
    BODY_LIMIT_BYTES: number = 65_536;

    /**
     * Largest body of `POST /shoes/{shoeId}/rounds/{roundId}/bets/batch`, in bytes (also the most
     * the JSON parser ever reads).
     * @default 5242880
     */
    @IntVar(1024, 52_428_800, 'bytes')
    BODY_LIMIT_BETS_BATCH_BYTES: number = 5_242_880;

    /**
     * Largest wallet transaction file of `POST /reconciliation/wallet-files`, in bytes (CSV or JSONL,
     * read as a stream and counted as it is read; docs/reports.md §4). Over it: 413 `REQUEST.TOO_LARGE`.
     * @default 20971520
     */
    @IntVar(1024, 268_435_456, 'bytes')
    WALLET_FILE_MAX_BYTES: number = 20_971_520;
  }
  return EdgeLimitsEnv;
}

/**
 * The bets batches' byte budget (docs/architecture.md §10, "Limits at the edge";
 * `apps/ledger/src/common/batch-admission.ts`): how many bytes of batch bodies the API works on at
 * once, and how long a batch may wait in line for room.
 */
export function WithBetsBatchBudget<B extends EnvClass>(Base: B) {
  class BetsBatchBudgetEnv extends Base {
    /**
     * Bytes of bets-batch bodies (`POST /shoes/{shoeId}/rounds/{roundId}/bets/batch`, by their
     * `Content-Length`) the API works on at once over all callers, from the body read to the answer
     * sent: what a batch costs in memory while it is decided, appended and answered grows with its
     * body, so this bounds the API's memory. A batch that does not fit waits in line, first come
     * first served; a batch alone runs whatever its size (docs/architecture.md §10, "Limits at the edge").
     * @default 3145728
     */
    @IntVar(1024, 1_073_741_824, 'bytes')
    BETS_BATCH_BYTES_IN_FLIGHT: number = 3_145_728;

    /**
     * Longest wait of a bets batch in line for {@link BETS_BATCH_BYTES_IN_FLIGHT}, in ms; past it:
     * 429 `RATE.BETS_BATCH_BUSY` with `Retry-After: 1`, its body never read, nothing recorded.
     * @default 30000
     */
    @IntVar(100, 600_000, 'ms')
    BETS_BATCH_QUEUE_TIMEOUT_MS: number = 30_000;
  }
  return BetsBatchBudgetEnv;
}

/**
 * The API's heavy reads (docs/architecture.md §10, "Limits at the edge"): chain and anchor
 * verification, game recall, exports, staff statistics — how many run at once per caller and over
 * all, their statement timeout, and the idle timeout after which an answer nobody reads is cut.
 */
export function WithHeavyReads<B extends EnvClass>(Base: B) {
  class HeavyReadsEnv extends Base {
    /**
     * Heavy reads (chain verification, game recall, anchor verification, exports, staff statistics)
     * one caller (token subject) may run at once; more: 429 `RATE.HEAVY_READ_BUSY` with `Retry-After`.
     * @default 1
     */
    @IntVar(1, 100, 'reads')
    HEAVY_READS_PER_CALLER: number = 1;

    /**
     * Heavy reads the API runs at once over all callers (over all API instances with
     * `LIMITS_REDIS_URL`); also the size of each instance's own connection pool for them, apart from
     * the writes' pool, so a heavy read never holds a connection a write waits for.
     * @default 4
     */
    @IntVar(1, 100, 'reads')
    HEAVY_READS_MAX_CONCURRENT: number = 4;

    /**
     * Statement timeout of a heavy read's queries, in ms; a read past it is cancelled (503 `DATABASE.TIMEOUT`).
     * @default 30000
     */
    @IntVar(100, 3_600_000, 'ms')
    HEAVY_READ_STATEMENT_TIMEOUT_MS: number = 30_000;

    /**
     * Idle timeout of a heavy read's answer, in ms: when the socket has accepted no byte of it for
     * this long while some are waiting (a client that stopped reading and never closes), the API cuts
     * the answer and gives its slot, its connection and its snapshot back (`ledger_heavy_reads_cut_total{reason="stalled"}`).
     * The answer of a bets batch is cut the same way, giving its bytes of `BETS_BATCH_BYTES_IN_FLIGHT` back.
     * @default 30000
     */
    @IntVar(100, 3_600_000, 'ms')
    HEAVY_READ_IDLE_TIMEOUT_MS: number = 30_000;
  }
  return HeavyReadsEnv;
}
