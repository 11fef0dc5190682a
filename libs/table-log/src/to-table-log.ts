import { isDecisionCommandKind, normalizeCommand } from '@ledger/client';
import { commandOfAction, DEFAULT_RUNNER_ACTORS, type RunnerActors, type ShoeScript } from '@ledger/simulator';
import { roleOf, type TableLogLine } from './table-log-line';

/** Options of {@link toTableLog}. */
export interface ToTableLogOptions {
  /**
   * Who sent the lines. When given, every line carries `actor` (device, platform or requesting
   * manager). Decision lines always carry `approverId`, the second manager who approves them with
   * their own token: `actors.approver`, default `pm-2` (the simulator runner's default).
   */
  readonly actors?: Partial<RunnerActors>;
  /** `batch` (default): a round's bets as one `bets` line, as the simulator sends them; `single`: one `bet` line each. */
  readonly betLines?: 'batch' | 'single';
}

/**
 * Writes a simulator {@link ShoeScript} as table-log lines, action by action, in order, so a
 * simulated shoe can be saved and replayed later (`replay --file`). Each action is its API
 * command (`commandOfAction`: the script's `shoeId`), written with exactly the command's fields,
 * in order; a management decision's line then names its approving manager (`approverId`, see
 * {@link ToTableLogOptions.actors}); the `actor` of its role is added when actors are given. The
 * text of a line is what earlier versions wrote for the same action. Replaying the lines sends
 * the same requests as `runShoeScript` does (same routes and bodies: both come from
 * `@ledger/client`; a decision requested, then approved by `approverId`).
 */
export function toTableLog(script: ShoeScript, options: ToTableLogOptions = {}): TableLogLine[] {
  const out: TableLogLine[] = [];
  const actors = options.actors;
  const approverId = actors?.approver ?? DEFAULT_RUNNER_ACTORS.approver;
  const push = (line: TableLogLine) => {
    const role = roleOf(line.kind);
    const who = role === 'table-device' ? actors?.device : role === 'betting-platform' ? actors?.platform : actors?.manager;
    out.push(who === undefined ? line : { ...line, actor: who });
  };
  for (const a of script.actions) {
    const command = normalizeCommand(commandOfAction(a, script.shoeId));
    const line = (isDecisionCommandKind(command.kind) ? { ...command, approverId } : command) as TableLogLine;
    if (line.kind === 'bets' && options.betLines === 'single') {
      for (const b of line.bets) push({ kind: 'bet', shoeId: line.shoeId, roundId: line.roundId, ...b });
    } else push(line);
  }
  return out;
}
