import { WithTracing } from './tracing';
import { BoolVar, IntVar, OneOfVar, TextVar } from '../env-var';
import { CommonEnv, TOPIC_NAME, WithDatabase, WithEventsTopic, WithGamingDay, WithKafka, WithLogging, WithProjectorHttp, WithMigrations, WithMigrationsDatabase, WithProjectorDatabase, WithReadModel } from './common';
import { WithDeadLetterTopic, WithRecordSigningKey } from './record-signing';
import { CRASH_POINTS, type CrashPointName } from './relay';

const TOPIC_FORM = 'a Kafka topic name ([A-Za-z0-9._-], 1..249)';

/**
 * The projector's configuration (`apps/projector`, also `npm run projections:rebuild`;
 * docs/architecture.md §5), read once at start.
 */
export class ProjectorEnv extends WithTracing(
  WithGamingDay(WithProjectorHttp(WithMigrations(WithReadModel(WithRecordSigningKey(WithDeadLetterTopic(WithEventsTopic(WithKafka(WithMigrationsDatabase(WithProjectorDatabase(WithDatabase(WithLogging(CommonEnv)))))))))))),
) {
  /**
   * Kafka consumer group of the projector, also the owner of its checkpoints.
   * @default ledger-projector
   */
  @TextVar(/^[A-Za-z0-9._:-]{1,200}$/, 'a consumer group id ([A-Za-z0-9._:-], 1..200)')
  PROJECTOR_GROUP: string = 'ledger-projector';

  /**
   * Partitions the projector applies at once (each in its own transactions): with 2, one
   * partition's batch is folded in Node while another's statements run in PostgreSQL.
   * @default 2
   */
  @IntVar(1, 64, 'partitions')
  PROJECTOR_PARTITIONS_CONCURRENTLY: number = 2;

  /**
   * Most records one projection transaction applies. A transaction costs a few set-wise statements
   * per table whatever its size, so a round's ~10,000 settlements fit in one.
   * @default 10000
   */
  @IntVar(1, 100_000, 'records')
  PROJECTOR_MAX_RECORDS_PER_TX: number = 10_000;

  /**
   * Most bytes one fetch takes from a partition (~10,000 settlement records of ~800 B).
   * @default 8388608
   */
  @IntVar(1024, 104_857_600, 'bytes')
  PROJECTOR_MAX_BYTES_PER_PARTITION: number = 8_388_608;

  /**
   * How often the projector reads its open projection incidents (a halted partition whose incident
   * was resolved with `projections:resume` resumes from its checkpoint) and checks the topic id
   * while idle (docs/guarantees.md §6), in milliseconds.
   * @default 5000
   */
  @IntVar(1000, 600_000, 'ms')
  PROJECTOR_INCIDENT_POLL_MS: number = 5000;

  /**
   * Tests only: a pause inside every projection transaction, before COMMIT, in milliseconds.
   * @default 0
   */
  @IntVar(0, 600_000, 'ms')
  PROJECTOR_FAULT_DELAY_IN_TX_MS: number = 0;

  /**
   * Write each applied event's analytics records to the analytics outbox.
   * @default true
   */
  @BoolVar()
  ANALYTICS_ENABLED: boolean = true;

  /**
   * Run the analytics publisher (outbox → analytics topics) in this process.
   * @default true
   */
  @BoolVar()
  ANALYTICS_PUBLISH: boolean = true;

  /**
   * Topic of round outcomes.
   * @default baccarat.analytics.round-outcomes.v1
   */
  @TextVar(TOPIC_NAME, TOPIC_FORM)
  ANALYTICS_ROUND_OUTCOMES_TOPIC: string = 'baccarat.analytics.round-outcomes.v1';

  /**
   * Topic of settlements.
   * @default baccarat.analytics.settlements.v1
   */
  @TextVar(TOPIC_NAME, TOPIC_FORM)
  ANALYTICS_SETTLEMENTS_TOPIC: string = 'baccarat.analytics.settlements.v1';

  /**
   * Topic of roads.
   * @default baccarat.analytics.roads.v1
   */
  @TextVar(TOPIC_NAME, TOPIC_FORM)
  ANALYTICS_ROADS_TOPIC: string = 'baccarat.analytics.roads.v1';

  /**
   * Analytics outbox rows published per batch.
   * @default 500
   */
  @IntVar(1, 5000, 'rows')
  ANALYTICS_PUBLISH_BATCH_SIZE: number = 500;

  /**
   * Fallback poll of the analytics outbox, in milliseconds.
   * @default 200
   */
  @IntVar(10, 60_000, 'ms')
  ANALYTICS_POLL_INTERVAL_MS: number = 200;

  /**
   * How long published analytics outbox rows are kept, in hours; 0 keeps them forever.
   * @default 168
   */
  @IntVar(0, 100_000, 'hours')
  ANALYTICS_RETAIN_PUBLISHED_HOURS: number = 168;

  /** Tests only: the analytics publisher exits with 137 at this point of a batch. */
  @OneOfVar(CRASH_POINTS, { optional: true })
  ANALYTICS_PUBLISHER_CRASH_POINT?: CrashPointName;
}
