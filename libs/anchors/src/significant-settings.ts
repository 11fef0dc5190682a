import type { AttestedSignificant, LedgerEvent } from '@ledger/events';
import { DEFAULT_EVENTS_TOPIC } from '@ledger/event-store';
import { DEFAULT_SIGNIFICANT_SETTINGS, significantSettingsProblem } from '@ledger/significant-events';
import { ledgerTopicOf } from './fairness-of-events';
import type { SqlSession } from './sql';
import { storedEventOf, type StoredEventRow } from './significant-stored';

/**
 * The significant-event settings in force at a position of the ledger (docs/significant-events.md,
 * "What is attested"): what `npm run -s verify` detects raises again with, computes a close's
 * fairness and a statistical alert again with, instead of the thresholds or confidence they state.
 */
export interface SettingsInForce {
  readonly settings: AttestedSignificant;
  /** The `ConfigurationAttested` stating them, or null: no attestation with settings at or below the position (the configuration's defaults). */
  readonly attestation: string | null;
  /** What is wrong with the attested settings (outside the configuration's validation), or null. */
  readonly problem: string | null;
}

/** One ledger-wide attestation carrying settings, as read. */
export interface AttestedSettingsRow {
  readonly eventId: string;
  /** Decimal string. */
  readonly globalPosition: string;
  /** Its ledger's events topic where several ledgers share the database (its outbox row's), else null. */
  readonly topic: string | null;
  /** Its outbox row is gone (pruned after `OUTBOX_RETENTION_MS`): `topic` is null for want of it, its ledger unknown. */
  readonly pruned?: boolean;
  readonly settings: AttestedSignificant;
}

/**
 * The settings in force at `position` of the ledger of `topic` (null: the database's only ledger):
 * the last of `attestations` (in global order) of that ledger at or below it, else
 * {@link DEFAULT_SIGNIFICANT_SETTINGS}. Attested settings the configuration would refuse are
 * reported (`problem`) and the defaults used instead. Pure.
 */
export function settingsInForce(attestations: readonly AttestedSettingsRow[], position: string, topic: string | null = null): SettingsInForce {
  let last: AttestedSettingsRow | null = null;
  for (const a of attestations) if (a.topic === topic && BigInt(a.globalPosition) <= BigInt(position)) last = a;
  if (!last) return { settings: DEFAULT_SIGNIFICANT_SETTINGS, attestation: null, problem: null };
  const problem = significantSettingsProblem(last.settings);
  return problem
    ? { settings: DEFAULT_SIGNIFICANT_SETTINGS, attestation: last.eventId, problem: `the ConfigurationAttested ${last.eventId} in force at its cause states settings the configuration refuses: ${problem}` }
    : { settings: last.settings, attestation: last.eventId, problem: null };
}

/**
 * Every ledger-wide `ConfigurationAttested` stating `significant` (an object), whose data its schema
 * admits (`storedEventOf`: a malformed attestation states nothing, here as for the `CONFIG.*` kinds),
 * in global order (at or below `through` when given). `pruned`: its outbox row is gone (its topic unknown).
 */
export async function attestedSettings(session: SqlSession, through?: string): Promise<AttestedSettingsRow[]> {
  const rows: (StoredEventRow & { topic: string | null; has_outbox: boolean })[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.type, e.stream_id, e.stream_version, e.global_position::text AS global_position, e.table_id, e.schema_version,
            e.actor_id, e.actor_role, e.occurred_at, e.recorded_at, e.data, o.topic, (o.global_position IS NOT NULL) AS has_outbox
       FROM events e LEFT JOIN outbox o ON o.global_position = e.global_position
      WHERE e.table_id = '*' AND e.type = 'ConfigurationAttested' AND jsonb_typeof(e.data -> 'significant') = 'object'
        ${through === undefined ? '' : 'AND e.global_position <= $1::bigint'}
      ORDER BY e.global_position`,
    through === undefined ? [] : [through],
  );
  return rows.flatMap((r) => {
    const e = storedEventOf(r) as LedgerEvent<'ConfigurationAttested'> | undefined;
    return e?.data.significant ? [{ eventId: r.event_id, globalPosition: r.global_position, topic: topicOrNull(r.topic), pruned: !r.has_outbox, settings: e.data.significant }] : [];
  });
}

/** An outbox row's topic as a ledger's: null for the default topic or a row gone. */
export const topicOrNull = (topic: string | null | undefined): string | null => (topic && topic !== DEFAULT_EVENTS_TOPIC ? topic : null);

/** The settings in force at `position` of the ledger of `topic` (read from the position's outbox row when not given), from the session ({@link settingsInForce}). */
export async function settingsInForceAt(session: SqlSession, position: string, topic?: string | null): Promise<SettingsInForce> {
  return settingsInForce(await attestedSettings(session, position), position, topic === undefined ? await ledgerTopicOf(session, position) : topic);
}
