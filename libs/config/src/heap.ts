/**
 * The V8 heap each service runs with, in MiB: the `--max-old-space-size` its launchers pass
 * (`npm start` / `npm run relay` / `npm run projector`, the demo's `demo_heap_of`, the Docker
 * image's CMD, the bench). With the rest of a Node process (code, buffers, the allocator) each stays
 * under 300 MiB of resident memory under the full bench (docs/architecture.md §3, "Memory").
 * The API's share for folded shoe states is `SHOE_CACHE_MAX_BYTES` (48 MiB by default), the rest is
 * for the requests in flight, bounded by `BETS_BATCH_BYTES_IN_FLIGHT`.
 *
 * test/heap-limits.unit.spec.ts checks every launcher against these figures.
 */
export const SERVICE_HEAP_MIB = {
  /** apps/ledger (the API). */
  ledger: 176,
  /** apps/relay. */
  relay: 160,
  /** apps/projector. */
  projector: 160,
} as const;

/** A service with a heap figure. */
export type HeapSizedService = keyof typeof SERVICE_HEAP_MIB;

/** The node option that sizes `service`'s heap, e.g. `--max-old-space-size=176`. */
export function heapOption(service: HeapSizedService): string {
  return `--max-old-space-size=${SERVICE_HEAP_MIB[service]}`;
}
