import { CommonEnv, WithDatabase, WithEventsTopic, WithKafka, WithLogging, WithRelayDatabase } from './common';
import { WithRecordSigningKey } from './record-signing';
import { WithRelayLease } from './relay';

/**
 * The configuration of `npm run -s republish` (`scripts/republish.ts`; docs/guarantees.md §4, §7):
 * the relay's login (it reads `events`, takes the relay's lease, marks the outbox), the brokers,
 * the ledger topic and the relay's record-signing key (the records must be the relay's, byte for
 * byte). Read once at start; the command-line flags choose the range.
 */
export class RepublishEnv extends WithRelayLease(WithRecordSigningKey(WithEventsTopic(WithKafka(WithRelayDatabase(WithDatabase(WithLogging(CommonEnv))))))) {}
