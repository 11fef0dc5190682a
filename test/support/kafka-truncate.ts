import { Kafka, logLevel } from 'kafkajs';

/**
 * Deletes the records of a partition below `offset` (Kafka's DeleteRecords: the log start moves
 * there), as retention or an operator would. Test support only: the Kafka port has no such call
 * on purpose (the ledger never deletes records), so this uses kafkajs directly.
 */
export async function deleteRecordsBefore(brokers: readonly string[], topic: string, partitions: ReadonlyMap<number, bigint>): Promise<void> {
  const admin = new Kafka({ clientId: 'ledger-tests-truncate', brokers: [...brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    // kafkajs finds the partition leaders only for topics whose metadata it loaded
    await admin.fetchTopicMetadata({ topics: [topic] });
    await admin.deleteTopicRecords({ topic, partitions: [...partitions].map(([partition, o]) => ({ partition, offset: o.toString() })) });
  } finally {
    await admin.disconnect();
  }
}
