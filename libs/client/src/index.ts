/**
 * The ledger API's client vocabulary: one definition of every write command (kind, HTTP method,
 * path template, token role, fields, body), from which the table log's line kinds, the
 * simulator's actions and the replayer's requests come, and of the second pit manager's acts on
 * a management decision (approve, reject). Pure: no I/O, no framework.
 */
export * from './api-commands';
export * from './decisions';
