import type { AttestedSignificant } from '@ledger/events';
import { DEFAULT_EVENTS_TOPIC } from '@ledger/event-store';
import { DEFAULT_SIGNIFICANT_SETTINGS, significantSettingsProblem } from '@ledger/significant-events';
import { ledgerTopicOf } from './fairness-of-events';
import type { SqlSession } from './sql';

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

/** Every ledger-wide `ConfigurationAttested` stating `significant` (an object: a JSON null or a string states nothing), in global order (at or below `through` when given). */
export async function attestedSettings(session: SqlSession, through?: string): Promise<AttestedSettingsRow[]> {
  const rows: { event_id: string; global_position: string; topic: string | null; significant: AttestedSignificant }[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.global_position::text AS global_position, e.data -> 'significant' AS significant,
            (SELECT o.topic FROM outbox o WHERE o.global_position = e.global_position) AS topic
       FROM events e WHERE e.table_id = '*' AND e.type = 'ConfigurationAttested' AND jsonb_typeof(e.data -> 'significant') = 'object'
        ${through === undefined ? '' : 'AND e.global_position <= $1::bigint'}
      ORDER BY e.global_position`,
    through === undefined ? [] : [through],
  );
  return rows.map((r) => ({ eventId: r.event_id, globalPosition: r.global_position, topic: topicOrNull(r.topic), settings: r.significant }));
}

/** An outbox row's topic as a ledger's: null for the default topic or a row gone. */
export const topicOrNull = (topic: string | null | undefined): string | null => (topic && topic !== DEFAULT_EVENTS_TOPIC ? topic : null);

/** The settings in force at `position` of the ledger of `topic` (read from the position's outbox row when not given), from the session ({@link settingsInForce}). */
export async function settingsInForceAt(session: SqlSession, position: string, topic?: string | null): Promise<SettingsInForce> {
  return settingsInForce(await attestedSettings(session, position), position, topic === undefined ? await ledgerTopicOf(session, position) : topic);
}
