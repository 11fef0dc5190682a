import { IntVar } from '../env-var';
import { CommonEnv, WithDatabase, WithEventsTopic, WithKafka, WithLogging, WithRelayDatabase } from './common';
import { WithRecordSigningKey } from './record-signing';

/**
 * The configuration of `npm run -s republish` (`scripts/republish.ts`; docs/guarantees.md §4, §7):
 * the relay's login (it reads `events`, takes the relay's lease, marks the outbox), the brokers,
 * the ledger topic and the relay's record-signing key (the records must be the relay's, byte for
 * byte). Read once at start; the command-line flags choose the range.
 */
export class RepublishEnv extends WithRecordSigningKey(WithEventsTopic(WithKafka(WithRelayDatabase(WithDatabase(WithLogging(CommonEnv)))))) {
  /**
   * Lease time-to-live of the relay's lease while the republish holds it, in milliseconds (as the
   * relay's `RELAY_LEASE_TTL_MS`): should the republish die, the relays take over this long after.
   * @default 5000
   */
  @IntVar(1000, 120_000, 'ms')
  RELAY_LEASE_TTL_MS: number = 5000;
}
