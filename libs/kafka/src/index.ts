/**
 * The Kafka port (docs/architecture.md §6): the project's producer, consumer and admin interfaces,
 * and `createKafka`, the factory of the one adapter (kafkajs). Code outside `./kafkajs/` never
 * imports a Kafka client library; dependency-cruiser enforces it (`.dependency-cruiser.cjs`).
 *
 *   const kafka = createKafka({ clientId: 'ledger-relay', brokers: ['127.0.0.1:9092'] });
 *   const producer = kafka.producer();
 *   await producer.connect();
 *   await producer.send(topic, [{ key: tableId, value: json, headers }]);
 */
export * from './client';
export * from './producer';
export * from './consumer';
export * from './admin';
export { createKafka } from './kafkajs/kafkajs-client';
