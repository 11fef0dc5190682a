import { projectionMigrations, type ProjectionMigrationClass } from '@ledger/projections';
import { AuditKeysetIndexes1797020000000 } from './1797020000000-audit-keyset-indexes';
import { LedgerEntries1799000200000 } from './1799000200000-ledger-entries';
import { LedgerWideEvents1799000400000 } from './1799000400000-ledger-wide-events';
import { SettlementActingManager1799000600000 } from './1799000600000-settlement-acting-manager';
import { AuditTimeOrder1799000700000 } from './1799000700000-audit-time-order';
import { SignificantEvents1799000800000 } from './1799000800000-significant-events';
import { SignificantEventCauses1799000850000 } from './1799000850000-significant-event-causes';

export { AuditKeysetIndexes1797020000000, auditKeysetIndexesSql, AUDIT_KEYSET_INDEX_NAMES } from './1797020000000-audit-keyset-indexes';
export { LedgerEntries1799000200000, ledgerEntriesGrantsSql, ledgerEntriesSql } from './1799000200000-ledger-entries';
export { LedgerWideEvents1799000400000, ledgerWideEventsSql } from './1799000400000-ledger-wide-events';
export { SettlementActingManager1799000600000, settlementActingManagerSql } from './1799000600000-settlement-acting-manager';
export { AuditTimeOrder1799000700000, auditTimeOrderSql } from './1799000700000-audit-time-order';
export { SignificantEvents1799000800000, significantEventsSql } from './1799000800000-significant-events';
export { SignificantEventCauses1799000850000, significantEventCausesSql } from './1799000850000-significant-event-causes';

/**
 * The migrations of the read model's own tables, oldest first: the audit's keyset indexes, the
 * reconciliation's `ledger_entries`, the audit's ledger-wide events, the settlement histories'
 * acting manager, the audit's time-ordered pages, the significant events. The engine runs them with its
 * own, in timestamp order (`runProjectionMigrations(ds, { schema, migrations: READ_MODEL_MIGRATIONS })`).
 * The read tables created before the split are created by the engine's 1733000000000 (it creates
 * both) and indexed by its 1799000100000; they stay there under their recorded names.
 */
export const READ_MODEL_MIGRATIONS: readonly ProjectionMigrationClass[] = [
  AuditKeysetIndexes1797020000000,
  LedgerEntries1799000200000,
  LedgerWideEvents1799000400000,
  SettlementActingManager1799000600000,
  AuditTimeOrder1799000700000,
  SignificantEvents1799000800000,
  SignificantEventCauses1799000850000,
];

/**
 * Every migration of a read-model schema, oldest first (the engine's and the read model's): the
 * list `migrateAll` runs and `npm run migration:show` reports (`<schema>.migrations`).
 */
export const PROJECTION_MIGRATIONS: readonly ProjectionMigrationClass[] = projectionMigrations(READ_MODEL_MIGRATIONS);
