import { CommonEnv, WithDatabase, WithEventsTopic, WithGamingDay, WithKafka } from './common';
import { WithAnchorVerification, WithAnchors } from './anchors';

/**
 * The configuration of `npm run -s verify` (`scripts/verify.ts`; docs/architecture.md §5;
 * docs/anchors.md, "npm run -s verify"): the database to check, the Kafka copy (brokers, ledger
 * topic), the anchors (file, topic, ledger id), the public keys and the gaming-day rule (the
 * fairness alerts a shoe's close owes, docs/significant-events.md, "What verify checks"). Read once at start; its
 * command-line flags, when given, take precedence over these values.
 */
export class VerifyEnv extends WithGamingDay(WithAnchorVerification(WithAnchors(WithEventsTopic(WithKafka(WithDatabase(CommonEnv)))))) {}
