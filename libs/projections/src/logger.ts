import type { StructuredLogger } from '@ledger/logging';
export { SILENT_LOGGER } from '@ledger/logging';

/** Where the projector logs (the one logger interface, docs/architecture.md §8). */
export type ProjectionLogger = StructuredLogger;
