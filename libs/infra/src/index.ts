/** Infrastructure shared by the apps: Kafka topic definitions. */
export * from './kafka/topics';
