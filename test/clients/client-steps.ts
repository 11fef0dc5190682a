import { apiRequestOf, type ApiWriterRole } from '@ledger/client';
import { commandOfAction, type ShoeScript, type TableAction } from '@ledger/simulator';

/**
 * A simulated shoe as the example client programs replay it (examples/ts-client,
 * examples/java-client): one step per action, named by the operationId of docs/openapi.json, with
 * its path parameters and JSON body apart, so that each program sends it through its own generated
 * client (a typed call per operation), not through a hand-built URL.
 */

/** The operationId of each action kind a plain shoe uses (no management decisions: those need a second pit manager). */
export const OPERATION_OF_ACTION: Readonly<Partial<Record<TableAction['kind'], string>>> = {
  openShoe: 'openShoe',
  commencement: 'drawCommencementCard',
  burn: 'burnCard',
  cutCard: 'drawCutCard',
  openRound: 'openRound',
  bets: 'placeBets',
  closeBetting: 'closeBetting',
  deal: 'dealCard',
  unneeded: 'drawUnneededCard',
  expose: 'exposeCard',
  drop: 'dropCard',
  closeShoe: 'closeShoe',
};

/** One call of a program: the operation, who sends it, its path parameters, body and idempotency key. */
export interface ClientStep {
  readonly operationId: string;
  readonly role: ApiWriterRole;
  readonly path: { readonly tableId?: string; readonly shoeId?: string; readonly roundId?: string };
  readonly body: Record<string, unknown>;
  readonly idempotencyKey: string;
}

/** What a program reads: the steps, and the shoe and round it recalls and reports on. */
export interface ClientSteps {
  readonly shoeId: string;
  readonly tableId: string;
  /** The last round that was dealt to a result: the one the program recalls. */
  readonly recallRoundId: string;
  readonly steps: readonly ClientStep[];
}

/**
 * The steps of a generated shoe (`generateShoeScript`), the body of each exactly as
 * `apiRequestOf` (`@ledger/client`) would send it, less the fields the path names.
 * @throws Error for an action no step maps (a management decision)
 */
export function clientStepsOf(script: ShoeScript): ClientSteps {
  const steps = script.actions.map((a, i): ClientStep => {
    const operationId = OPERATION_OF_ACTION[a.kind];
    if (!operationId) throw new Error(`no client step for a ${a.kind} action`);
    const req = apiRequestOf(commandOfAction(a, script.shoeId));
    const roundId = 'roundId' in a ? a.roundId : undefined;
    const path = a.kind === 'openShoe' ? { tableId: a.tableId } : { shoeId: script.shoeId, ...(roundId ? { roundId } : {}) };
    return { operationId, role: req.role, path, body: req.body, idempotencyKey: `${script.shoeId}:${i}` };
  });
  const dealt = script.actions.filter((a): a is Extract<TableAction, { kind: 'deal' }> => a.kind === 'deal');
  if (dealt.length === 0) throw new Error('the shoe deals no round');
  return { shoeId: script.shoeId, tableId: script.table.tableId, recallRoundId: dealt[dealt.length - 1].roundId, steps };
}
