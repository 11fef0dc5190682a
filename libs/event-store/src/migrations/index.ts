import { CreateEvents1795950000000 } from './1795950000000-CreateEvents';
import { CreateStreamsOutboxIdempotency1795950000001 } from './1795950000001-CreateStreamsOutboxIdempotency';
import { CreateRejections1795950000002 } from './1795950000002-CreateRejections';
import { CreateReferences1795950000003 } from './1795950000003-CreateReferences';
import { GrantRuntimeRoles1795950000100 } from './1795950000100-GrantRuntimeRoles';
import { ScopeIdempotencyKeysByCaller1795950000110 } from './1795950000110-ScopeIdempotencyKeysByCaller';
import { CreateOutboxLeases1796000500000 } from './1796000500000-CreateOutboxLeases';
import { AppendWithoutGlobalLock1797000000000 } from './1797000000000-AppendWithoutGlobalLock';
import { OutboxTraceContext1798000000000 } from './1798000000000-OutboxTraceContext';
import { GuardedProgress1799100000000 } from './1799100000000-GuardedProgress';
import { AppendByUnnest1799500000000 } from './1799500000000-AppendByUnnest';
import { ReferencesByInsert1799700000000 } from './1799700000000-ReferencesByInsert';
import { SignificantEventsIndex1799800000000 } from './1799800000000-SignificantEventsIndex';
import { GuardSignificantStreams1799900000000 } from './1799900000000-GuardSignificantStreams';
import { FiniteEventTimes1800000000000 } from './1800000000000-FiniteEventTimes';

/** The event store's migrations, oldest first. Register them in any DataSource that runs migrations. */
export const EVENT_STORE_MIGRATIONS = [
  CreateEvents1795950000000,
  CreateStreamsOutboxIdempotency1795950000001,
  CreateRejections1795950000002,
  CreateReferences1795950000003,
  GrantRuntimeRoles1795950000100,
  ScopeIdempotencyKeysByCaller1795950000110,
  CreateOutboxLeases1796000500000,
  AppendWithoutGlobalLock1797000000000,
  OutboxTraceContext1798000000000,
  GuardedProgress1799100000000,
  AppendByUnnest1799500000000,
  ReferencesByInsert1799700000000,
  SignificantEventsIndex1799800000000,
  GuardSignificantStreams1799900000000,
  FiniteEventTimes1800000000000,
];

export { CreateEvents1795950000000, CreateStreamsOutboxIdempotency1795950000001, CreateRejections1795950000002, CreateReferences1795950000003 };
export {
  GrantRuntimeRoles1795950000100,
  ScopeIdempotencyKeysByCaller1795950000110,
  CreateOutboxLeases1796000500000,
  AppendWithoutGlobalLock1797000000000,
  OutboxTraceContext1798000000000,
  GuardedProgress1799100000000,
  AppendByUnnest1799500000000,
  ReferencesByInsert1799700000000,
  SignificantEventsIndex1799800000000,
  GuardSignificantStreams1799900000000,
  FiniteEventTimes1800000000000,
};
export { OUTBOX_LEASE_GRANTS } from './1796000500000-CreateOutboxLeases';
export { APPEND_GRANTS } from './1797000000000-AppendWithoutGlobalLock';
export { MARK_PROGRESS_GRANTS } from './1799100000000-GuardedProgress';
