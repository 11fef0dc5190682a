import { LedgerClient } from './ledger-client';
import { ShoeScript, TableAction } from './shoe-script';

/** Who sends what: device, platform and the two pit managers (neither is the dealer). */
export interface RunnerActors {
  device: string;
  platform: string;
  manager: string;
  approver: string;
}

/** Counts of what a run sent. */
export interface RunStats {
  requests: number;
  events: number;
  bets: number;
  rounds: number;
  voids: number;
  corrections: number;
}

const DEFAULT_ACTORS: RunnerActors = { device: 'device-1', platform: 'platform-1', manager: 'pm-1', approver: 'pm-2' };

/**
 * Sends a generated shoe through the public HTTP API, in order, as a real table device, betting
 * platform and pit managers would. Each write carries an `Idempotency-Key` derived from the shoe
 * and the action's index, so a re-run after a crash is safe.
 * @param onProgress called after each action with (done, total)
 * @throws LedgerHttpError on the first refused action (a generated shoe should have none)
 */
export async function runShoeScript(
  script: ShoeScript,
  client: LedgerClient,
  actors: RunnerActors = DEFAULT_ACTORS,
  onProgress?: (done: number, total: number) => void,
): Promise<RunStats> {
  const stats: RunStats = { requests: 0, events: 0, bets: 0, rounds: 0, voids: 0, corrections: 0 };
  const s = `/shoes/${encodeURIComponent(script.shoeId)}`;
  for (let i = 0; i < script.actions.length; i++) {
    const a = script.actions[i];
    const key = { 'idempotency-key': `${script.shoeId}:${i}` };
    const [role, sub, path, body] = route(a, s, actors);
    const res = await client.post(role, sub, path, body, key);
    stats.requests++;
    stats.events += res.events?.length ?? 0;
    if (a.kind === 'bets') stats.bets += a.bets.length;
    if (a.kind === 'openRound') stats.rounds++;
    if (a.kind === 'voidRound') stats.voids++;
    if (a.kind === 'correctResult') stats.corrections++;
    onProgress?.(i + 1, script.actions.length);
  }
  return stats;
}

type Route = ['table-device' | 'betting-platform' | 'pit-manager', string, string, unknown];

/** The HTTP route, role and body of one action (see apps/ledger controllers). */
export function route(a: TableAction, s: string, actors: RunnerActors): Route {
  const dev = (path: string, body: unknown = {}): Route => ['table-device', actors.device, path, body];
  const pm = (path: string, body: unknown): Route => ['pit-manager', actors.manager, path, body];
  switch (a.kind) {
    case 'openShoe':
      return dev(`/tables/${encodeURIComponent(a.tableId)}/shoes`, { shoeId: a.shoeId, dealerId: a.dealerId });
    case 'commencement':
      return dev(`${s}/commencement`, { card: a.card });
    case 'burn':
      return dev(`${s}/burns`, { card: a.card });
    case 'openRound':
      return dev(`${s}/rounds`, { roundId: a.roundId });
    case 'bets':
      return ['betting-platform', actors.platform, `${s}/rounds/${a.roundId}/bets/batch`, { bets: a.bets }];
    case 'closeBetting':
      return dev(`${s}/rounds/${a.roundId}/close-betting`);
    case 'deal':
      return dev(`${s}/rounds/${a.roundId}/cards`, { position: a.position, card: a.card });
    case 'unneeded':
      return dev(`${s}/rounds/${a.roundId}/unneeded-cards`, { card: a.card });
    case 'expose':
      return dev(`${s}/exposed-cards`, { card: a.card });
    case 'drop':
      return dev(`${s}/dropped-cards`, { card: a.card, exposedBeforeLeavingView: a.exposedBeforeLeavingView });
    case 'cutCard':
      return dev(`${s}/cut-card`);
    case 'closeShoe':
      return dev(`${s}/close`);
    case 'voidRound':
      return pm(`${s}/rounds/${a.roundId}/void`, { reason: a.reason, approverId: actors.approver });
    case 'correctResult':
      return pm(`${s}/rounds/${a.roundId}/result-corrections`, { cards: a.cards, reason: a.reason, approverId: actors.approver });
  }
}
