import { roleOf, TableLogLine, TableLogRole } from '@ledger/table-log';

/** Who sends lines that carry no `actor`: one id per role. */
export interface ReplayActors {
  /** Table device (table facts). @default device-1 */
  readonly device: string;
  /** Betting platform (bets). @default platform-1 */
  readonly platform: string;
  /** Acting pit manager (decisions; the approver is on the line). @default pm-1 */
  readonly manager: string;
}

/** The simulator runner's defaults, so a saved simulated shoe replays as the runner sent it. */
export const DEFAULT_REPLAY_ACTORS: ReplayActors = { device: 'device-1', platform: 'platform-1', manager: 'pm-1' };

/** One HTTP write of the ledger API: token role and subject, path and JSON body. */
export interface ApiWrite {
  readonly role: TableLogRole;
  /** Token subject: the line's `actor`, else the default of the role. */
  readonly sub: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

const enc = encodeURIComponent;

/**
 * The API request that records one table-log line (routes, roles and bodies of
 * `apps/ledger/src/shoe/*.controller.ts`). `occurredAt` goes into the body; `actor` becomes the
 * token's subject; nothing else is added (the API refuses unknown body fields).
 */
export function apiWriteOf(l: TableLogLine, actors: ReplayActors = DEFAULT_REPLAY_ACTORS): ApiWrite {
  const role = roleOf(l.kind);
  const sub = l.actor ?? (role === 'table-device' ? actors.device : role === 'betting-platform' ? actors.platform : actors.manager);
  const s = `/shoes/${enc(l.shoeId)}`;
  const when = l.occurredAt === undefined ? {} : { occurredAt: l.occurredAt };
  const w = (path: string, body: Record<string, unknown> = {}): ApiWrite => ({ role, sub, path, body: { ...body, ...when } });
  switch (l.kind) {
    case 'openShoe':
      return w(`/tables/${enc(l.tableId)}/shoes`, { shoeId: l.shoeId, dealerId: l.dealerId });
    case 'commencement':
      return w(`${s}/commencement`, { card: l.card });
    case 'burn':
      return w(`${s}/burns`, { card: l.card });
    case 'openRound':
      return w(`${s}/rounds`, { roundId: l.roundId });
    case 'closeBetting':
      return w(`${s}/rounds/${enc(l.roundId)}/close-betting`);
    case 'deal':
      return w(`${s}/rounds/${enc(l.roundId)}/cards`, { position: l.position, card: l.card });
    case 'unneeded':
      return w(`${s}/rounds/${enc(l.roundId)}/unneeded-cards`, { card: l.card });
    case 'expose':
      return w(`${s}/exposed-cards`, l.phase === undefined ? { card: l.card } : { card: l.card, phase: l.phase });
    case 'drop': {
      const body: Record<string, unknown> = { card: l.card, exposedBeforeLeavingView: l.exposedBeforeLeavingView };
      if (l.phase !== undefined) body.phase = l.phase;
      return w(`${s}/dropped-cards`, body);
    }
    case 'cutCard':
      return w(`${s}/cut-card`);
    case 'changeDealer':
      return w(`${s}/dealer`, { dealerId: l.dealerId });
    case 'closeShoe':
      return w(`${s}/close`);
    case 'bet':
      return w(`${s}/rounds/${enc(l.roundId)}/bets`, {
        bet: { betId: l.betId, accountId: l.accountId, betCode: l.betCode, stake: l.stake, currency: l.currency },
      });
    case 'bets':
      return w(`${s}/rounds/${enc(l.roundId)}/bets/batch`, {
        bets: l.bets.map((b) => ({ betId: b.betId, accountId: b.accountId, betCode: b.betCode, stake: b.stake, currency: b.currency })),
      });
    case 'voidRound':
      return w(`${s}/rounds/${enc(l.roundId)}/void`, { reason: l.reason, approverId: l.approverId });
    case 'correctResult':
      return w(`${s}/rounds/${enc(l.roundId)}/result-corrections`, { cards: [...l.cards], reason: l.reason, approverId: l.approverId });
    case 'voidShoe':
      return w(`${s}/void`, { reason: l.reason, approverId: l.approverId });
    case 'correctCommencement':
      return w(`${s}/commencement/corrections`, { card: l.card, reason: l.reason });
    default: {
      const unhandled: never = l;
      throw new Error(`no API route for ${JSON.stringify(unhandled)}`);
    }
  }
}
