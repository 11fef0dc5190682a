/** The ledger's event catalogue: envelope, every event type and its data, schema versions, upcasting. */
export * from './envelope';
export * from './catalogue';
export * from './upcasters';
