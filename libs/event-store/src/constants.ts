import { DEFAULT_DATABASE_URL, databaseUrlForRole, LEDGER_RELAY_ROLE } from '@ledger/config';

/**
 * Database used when no argument names one: the local stack's, as the API's runtime role
 * `ledger_app` (docs/architecture.md §10): the default of `DATABASE_URL` (`@ledger/config`).
 * Loopback only.
 */
export { DEFAULT_DATABASE_URL };

/** The relay's database when no option names one: the local stack's, as the relay's role `ledger_relay` (the default of `RELAY_DATABASE_URL`). */
export const DEFAULT_RELAY_DATABASE_URL = databaseUrlForRole(DEFAULT_DATABASE_URL, LEDGER_RELAY_ROLE);

/**
 * Topic every outbox row names: the ledger's event stream. Same value as `LEDGER_EVENTS_TOPIC` in
 * `libs/infra/src/kafka/topics.ts` (an integration test checks they agree).
 */
export const DEFAULT_EVENTS_TOPIC = 'baccarat.ledger.events.v1';

/** PostgreSQL NOTIFY channel an append signals on commit; the outbox relay LISTENs to it. Payload: last global position. */
export const OUTBOX_CHANNEL = 'outbox';
