/**
 * Database used when neither an argument nor env `DATABASE_URL` names one: the local stack's, as the
 * API's runtime role `ledger_app` (docs/architecture.md §10; `LOCAL_DATABASE_URL` of `@ledger/infra`).
 * Loopback only.
 */
export const DEFAULT_DATABASE_URL = 'postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger';

/**
 * Topic every outbox row names: the ledger's event stream. Same value as `LEDGER_EVENTS_TOPIC` in
 * `libs/infra/src/kafka/topics.ts` (an integration test checks they agree).
 */
export const DEFAULT_EVENTS_TOPIC = 'baccarat.ledger.events.v1';

/** PostgreSQL NOTIFY channel an append signals on commit; the outbox relay LISTENs to it. Payload: last global position. */
export const OUTBOX_CHANNEL = 'outbox';
