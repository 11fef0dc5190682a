/**
 * The V8 heap each service runs with, in MiB: the `--max-old-space-size` its launchers pass
 * (`npm start` / `npm run relay` / `npm run projector`, the demo's `demo_heap_of`, the Docker
 * image's CMD, the bench); docs/architecture.md §3, "Memory". The relay and the projector work in
 * bounded batches and stay under 300 MiB resident under the full bench. The API's heap must also
 * hold the settlement of the largest round in one append: 176 MiB ran out settling a round of
 * 25,000 bets (the API died, the last card unrecorded), 512 MiB settles it (peak 309 MiB resident);
 * under the bench's ingest the API then peaks at ≈ 330 MiB. Its share for folded shoe states is
 * `SHOE_CACHE_MAX_BYTES` (48 MiB by default), the rest is for the requests in flight, whose bodies
 * are bounded by `BETS_BATCH_BYTES_IN_FLIGHT`. A rebuild (`npm run projections:rebuild`, the bench's
 * rebuild worker) peaked at 525 MiB resident over 1,000,929 events with V8's default heap, at
 * 311–322 MiB with 160 MiB.
 *
 * test/heap-limits.unit.spec.ts checks every launcher against these figures.
 */
export const SERVICE_HEAP_MIB = {
  /** apps/ledger (the API): room to settle a round of ~50,000 bets in one append. */
  ledger: 512,
  /** apps/relay. */
  relay: 160,
  /** apps/projector. */
  projector: 160,
  /** A rebuild of the read model (`npm run projections:rebuild`, the bench's rebuild worker). */
  rebuild: 160,
} as const;

/** A service with a heap figure. */
export type HeapSizedService = keyof typeof SERVICE_HEAP_MIB;

/** The node option that sizes `service`'s heap, e.g. `--max-old-space-size=512`. */
export function heapOption(service: HeapSizedService): string {
  return `--max-old-space-size=${SERVICE_HEAP_MIB[service]}`;
}
