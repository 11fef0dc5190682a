import type { AttestedTable, ConfigurationAttestedData } from '@ledger/events';
import { significantEventSpec, type SignificantEventCode } from './codes';
import type { SignificantEventDraft } from './detect';
import { significantSettingsChanges } from './settings';

/** The four parts of a configuration attestation, each the part one kind of the catalogue watches. */
export type ConfigurationPart = 'tables' | 'paytables' | 'keys' | 'significant';

/** The kind each part raises when it changed (docs/significant-events.md, "Configuration at start"). */
export const CONFIGURATION_PART_CODES: Readonly<Record<ConfigurationPart, SignificantEventCode>> = {
  tables: 'CONFIG.TABLES_CHANGED',
  paytables: 'CONFIG.PAYTABLES_CHANGED',
  keys: 'CONFIG.KEYS_ROTATED',
  significant: 'CONFIG.SIGNIFICANT_SETTINGS_CHANGED',
};

/** The part whose change raises `code`, or null when `code` is not one of the configuration kinds. */
export function configurationPartOf(code: string): ConfigurationPart | null {
  return (Object.keys(CONFIGURATION_PART_CODES) as ConfigurationPart[]).find((p) => CONFIGURATION_PART_CODES[p] === code) ?? null;
}

/** The most changes a raise's `details.changes` names; more are counted (`… and N more`). */
export const MAX_NAMED_CHANGES = 40;

/** What changed between two attestations, part by part: short sentences, in a stable order (empty: unchanged). */
export type ConfigurationChanges = Readonly<Record<ConfigurationPart, readonly string[]>>;

/** The table settings compared field by field (the paytable is the paytables' part). */
const TABLE_FIELDS = ['variant', 'decks', 'currency', 'virtualTable', 'pairBetsRequireMainBet'] as const;

const byId = <T>(items: readonly T[], id: (t: T) => string): Map<string, T> => new Map(items.map((t) => [id(t), t]));
const sortedUnion = (a: Iterable<string>, b: Iterable<string>): string[] => [...new Set([...a, ...b])].sort();

/** The tables' part: a table added or removed, a setting or its limits changed. */
function tableChanges(prev: readonly AttestedTable[], cur: readonly AttestedTable[]): string[] {
  const p = byId(prev, (t) => t.tableId);
  const c = byId(cur, (t) => t.tableId);
  const out: string[] = [];
  for (const id of sortedUnion(p.keys(), c.keys())) {
    const a = p.get(id);
    const b = c.get(id);
    if (!a) out.push(`${id} added`);
    else if (!b) out.push(`${id} removed`);
    else {
      for (const f of TABLE_FIELDS) if (a[f] !== b[f]) out.push(`${id} ${f} ${String(a[f])} → ${String(b[f])}`);
      if (a.limitsSha256 !== b.limitsSha256) out.push(`${id} limits changed`);
    }
  }
  return out;
}

/** The paytables' part: a table of both on another paytable, a paytable's content changed, a paytable added or removed. */
function paytableChanges(prev: ConfigurationAttestedData, cur: ConfigurationAttestedData): string[] {
  const out: string[] = [];
  const p = byId(prev.tables, (t) => t.tableId);
  for (const b of [...cur.tables].sort((x, y) => (x.tableId < y.tableId ? -1 : 1))) {
    const a = p.get(b.tableId);
    if (a && a.paytableRef !== b.paytableRef) out.push(`${b.tableId} paytable ${a.paytableRef} → ${b.paytableRef}`);
  }
  const pp = byId(prev.paytables, (t) => t.ref);
  const cp = byId(cur.paytables, (t) => t.ref);
  for (const ref of sortedUnion(pp.keys(), cp.keys())) {
    const a = pp.get(ref);
    const b = cp.get(ref);
    if (!a) out.push(`paytable ${ref} added`);
    else if (!b) out.push(`paytable ${ref} removed`);
    else if (a.sha256 !== b.sha256) out.push(`paytable ${ref} content changed`);
  }
  return out;
}

/** A set of key ids compared: each id no longer there, each id new. */
function keySetChanges(use: string, prev: readonly string[], cur: readonly string[]): string[] {
  const gone = prev.filter((k) => !cur.includes(k)).sort();
  const added = cur.filter((k) => !prev.includes(k)).sort();
  return [...gone.map((k) => `${use} key ${k} removed`), ...added.map((k) => `${use} key ${k} added`)];
}

/** The keys' part: a verification key of the anchors or tokens added or removed, the reports' signing key changed. */
function keyChanges(prev: ConfigurationAttestedData['keys'], cur: ConfigurationAttestedData['keys']): string[] {
  const reports = prev.reports !== cur.reports ? [`reports signing key ${prev.reports ?? 'none'} → ${cur.reports ?? 'none'}`] : [];
  return [...keySetChanges('anchors', prev.anchors, cur.anchors), ...reports, ...keySetChanges('tokens', prev.tokens, cur.tokens)];
}

/**
 * What changed from the `previous` configuration attestation to `current`, part by part
 * (docs/significant-events.md, "Configuration at start"): tables (added, removed, a setting or the
 * limits' digest), paytables (a table's `paytableRef`, a paytable's content digest, a paytable added
 * or removed), keys (ids added or removed, the report key changed) and the significant-event
 * settings (each one changed; a previous attestation without them counts as the configuration's
 * defaults, a current one without them changes nothing). The host is not compared (several
 * instances may start with the same configuration). Pure.
 */
export function configurationChanges(previous: ConfigurationAttestedData, current: ConfigurationAttestedData): ConfigurationChanges {
  return {
    tables: tableChanges(previous.tables, current.tables),
    paytables: paytableChanges(previous, current),
    keys: keyChanges(previous.keys, current.keys),
    significant: significantSettingsChanges(previous.significant, current.significant),
  };
}

/** The `details.changes` of a raise: its part's changes joined by `; `, at most {@link MAX_NAMED_CHANGES} named. */
export function changesText(changes: readonly string[]): string {
  const named = changes.slice(0, MAX_NAMED_CHANGES).join('; ');
  return changes.length > MAX_NAMED_CHANGES ? `${named}; … and ${changes.length - MAX_NAMED_CHANGES} more` : named;
}

/** An attestation as the configuration detector reads it: its event id and data. */
export interface AttestationOf {
  readonly eventId: string;
  readonly data: ConfigurationAttestedData;
}

/**
 * The significant events a configuration attestation raises (docs/significant-events.md,
 * "Configuration at start"): one draft per part changed since the `previous` attestation of the
 * ledger (`CONFIG.TABLES_CHANGED`, `CONFIG.PAYTABLES_CHANGED`, `CONFIG.KEYS_ROTATED`,
 * `CONFIG.SIGNIFICANT_SETTINGS_CHANGED`), with details
 * `{ changes, previousAttestation }` (the changes' sentences, the previous attestation's event id).
 * None for the first attestation ever (`previous` null: nothing to compare with; the attestation
 * itself records what the ledger started with) nor for an identical restart. Pure.
 */
export function configurationDrafts(previous: AttestationOf | null, current: ConfigurationAttestedData): SignificantEventDraft[] {
  if (!previous) return [];
  const changes = configurationChanges(previous.data, current);
  return (Object.keys(CONFIGURATION_PART_CODES) as ConfigurationPart[])
    .filter((part) => changes[part].length > 0)
    .map((part) => {
      const code = CONFIGURATION_PART_CODES[part];
      return { code, severity: significantEventSpec(code).severity, details: { changes: changesText(changes[part]), previousAttestation: previous.eventId } };
    });
}
