/**
 * The table log: a JSONL record of what happened at a table (facts, bets, management decisions),
 * one line each, in order: each line is a command of the API (`@ledger/client`, the one definition
 * of kinds, fields and routes). Format in `../TABLE_LOG_FORMAT.md`; the validator checks every kind;
 * `toTableLog` writes a simulated shoe as a log. Replayed through the HTTP API by `apps/replayer`.
 */
export * from './table-log-line';
export * from './validate';
export * from './to-table-log';
