/** The ledger's event catalogue: envelope, every event type and its data (and their JSON Schemas), schema versions, upcasting; the id and card notations. */
export * from './envelope';
export * from './catalogue';
export * from './decisions';
export * from './significant';
export * from './configuration';
export * from './upcasters';
export * from './patterns';
export * from './event-schemas';
export * from './clock-skew';
