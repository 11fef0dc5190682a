import type { RunnerActors, ShoeScript } from '@ledger/simulator';
import type { TableLogBet, TableLogLine } from './table-log-line';

/** Options of {@link toTableLog}. */
export interface ToTableLogOptions {
  /**
   * Who sent the lines. When given, every line carries `actor` (device, platform or acting
   * manager). Decision lines always carry `approverId`: `actors.approver`, default `pm-2`
   * (the simulator runner's default).
   */
  readonly actors?: Partial<RunnerActors>;
  /** `batch` (default): a round's bets as one `bets` line, as the simulator sends them; `single`: one `bet` line each. */
  readonly betLines?: 'batch' | 'single';
}

/** The simulator runner's default approving manager. */
const DEFAULT_APPROVER = 'pm-2';

/**
 * Writes a simulator {@link ShoeScript} as table-log lines, action by action, in order, so a
 * simulated shoe can be saved and replayed later (`replay --file`). Each line gets the script's
 * `shoeId`; management decisions get an `approverId` (see {@link ToTableLogOptions.actors}).
 * Replaying the lines sends the same requests as `runShoeScript` does (same routes and bodies).
 */
export function toTableLog(script: ShoeScript, options: ToTableLogOptions = {}): TableLogLine[] {
  const out: TableLogLine[] = [];
  const actors = options.actors;
  const approverId = actors?.approver ?? DEFAULT_APPROVER;
  const shoeId = script.shoeId;
  const withActor = <L extends TableLogLine>(l: L, who: string | undefined): L => (who === undefined ? l : ({ ...l, actor: who } as L));
  const dev = (l: TableLogLine) => out.push(withActor(l, actors?.device));
  const platform = (l: TableLogLine) => out.push(withActor(l, actors?.platform));
  const pm = (l: TableLogLine) => out.push(withActor(l, actors?.manager));
  for (const a of script.actions) {
    const kind = a.kind;
    switch (a.kind) {
      case 'openShoe':
        dev({ kind: 'openShoe', shoeId: a.shoeId, tableId: a.tableId, dealerId: a.dealerId });
        break;
      case 'commencement':
        dev({ kind: 'commencement', shoeId, card: a.card });
        break;
      case 'burn':
        dev({ kind: 'burn', shoeId, card: a.card });
        break;
      case 'openRound':
        dev({ kind: 'openRound', shoeId, roundId: a.roundId });
        break;
      case 'bets': {
        const bets: TableLogBet[] = a.bets.map((b) => ({ betId: b.betId, accountId: b.accountId, betCode: b.betCode, stake: b.stake, currency: b.currency }));
        if (options.betLines === 'single') for (const b of bets) platform({ kind: 'bet', shoeId, roundId: a.roundId, ...b });
        else platform({ kind: 'bets', shoeId, roundId: a.roundId, bets });
        break;
      }
      case 'closeBetting':
        dev({ kind: 'closeBetting', shoeId, roundId: a.roundId });
        break;
      case 'deal':
        dev({ kind: 'deal', shoeId, roundId: a.roundId, position: a.position, card: a.card });
        break;
      case 'unneeded':
        dev({ kind: 'unneeded', shoeId, roundId: a.roundId, card: a.card });
        break;
      case 'expose':
        dev({ kind: 'expose', shoeId, card: a.card });
        break;
      case 'drop':
        dev({ kind: 'drop', shoeId, card: a.card, exposedBeforeLeavingView: a.exposedBeforeLeavingView });
        break;
      case 'cutCard':
        dev({ kind: 'cutCard', shoeId });
        break;
      case 'closeShoe':
        dev({ kind: 'closeShoe', shoeId });
        break;
      case 'voidRound':
        pm({ kind: 'voidRound', shoeId, roundId: a.roundId, reason: a.reason, approverId });
        break;
      case 'correctResult':
        pm({ kind: 'correctResult', shoeId, roundId: a.roundId, cards: [...a.cards], reason: a.reason, approverId });
        break;
      default: {
        const unhandled: never = a; // a new simulator action kind must be written here
        throw new Error(`toTableLog: unknown simulator action ${JSON.stringify(kind)} in ${JSON.stringify(unhandled)}`);
      }
    }
  }
  return out;
}
