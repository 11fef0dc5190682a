/**
 * Spec fixture (holds no test; named `*.spec.ts` so the build leaves it out): the ledger's pure
 * state machine (`decide`/`evolve` of `@ledger/shoe`) driven by table-log lines, the way the HTTP
 * controllers turn requests into commands. Lets unit specs check that a log is accepted, line by
 * line, and what it records, without a database.
 */
import type { NewEvent } from '@ledger/events';
import { decide, evolve, initialState, type ShoeCommand, type ShoeState } from '@ledger/shoe';
import type { SimTable } from '@ledger/simulator';
import type { TableLogBet, TableLogLine } from './table-log-line';

const bet = (b: TableLogBet) => ({ betId: b.betId, accountId: b.accountId, betCode: b.betCode, stake: BigInt(b.stake), currency: b.currency });

/**
 * The command a line becomes (as `apps/ledger/src/shoe/*.controller.ts` build them). A management
 * decision's line becomes the command its approval carries out: requested by the line's `actor`
 * (else `defaultManager`), approved by its `approverId` (else `defaultApprover`), as the replayer
 * sends it in two steps; the approval itself is the ledger's four-eyes check, not modelled here.
 */
export function commandOf(l: TableLogLine, tables: readonly SimTable[], defaultManager = 'pm-1', defaultApprover = 'pm-2'): ShoeCommand {
  const decision = (reason: string, approverId: string | undefined) => ({ reason, actingManagerId: l.actor ?? defaultManager, approverId: approverId ?? defaultApprover });
  switch (l.kind) {
    case 'openShoe': {
      const t = tables.find((x) => x.tableId === l.tableId);
      if (!t) throw new Error(`no table ${l.tableId}`);
      const settings = { variant: t.variant, decks: t.decks, virtualTable: t.virtualTable, paytableRef: t.paytableRef, pairBetsRequireMainBet: t.pairBetsRequireMainBet, currency: t.currency, limits: t.limits };
      return { type: 'OpenShoe', shoeId: l.shoeId, tableId: l.tableId, dealerId: l.dealerId, settings };
    }
    case 'commencement':
      return { type: 'DrawCommencementCard', card: l.card };
    case 'burn':
      return { type: 'BurnCard', card: l.card };
    case 'openRound':
      return { type: 'OpenRound', roundId: l.roundId };
    case 'closeBetting':
      return { type: 'CloseBetting', roundId: l.roundId };
    case 'deal':
      return { type: 'DealCard', roundId: l.roundId, position: l.position, card: l.card };
    case 'unneeded':
      return { type: 'DrawUnneededCard', roundId: l.roundId, card: l.card };
    case 'expose':
      return { type: 'ExposeCard', card: l.card, phase: l.phase };
    case 'drop':
      return { type: 'DropCard', card: l.card, exposedBeforeLeavingView: l.exposedBeforeLeavingView, phase: l.phase };
    case 'cutCard':
      return { type: 'DrawCutCard' };
    case 'changeDealer':
      return { type: 'ChangeDealer', dealerId: l.dealerId };
    case 'closeShoe':
      return { type: 'CloseShoe' };
    case 'bet':
      return { type: 'PlaceBets', roundId: l.roundId, bets: [bet(l)] };
    case 'bets':
      return { type: 'PlaceBets', roundId: l.roundId, bets: l.bets.map(bet) };
    case 'voidRound':
      return { type: 'VoidRound', roundId: l.roundId, decision: decision(l.reason, l.approverId) };
    case 'correctResult':
      return { type: 'CorrectResult', roundId: l.roundId, cards: l.cards, decision: decision(l.reason, l.approverId) };
    case 'voidShoe':
      return { type: 'VoidShoe', decision: decision(l.reason, l.approverId) };
    case 'correctCommencement':
      return { type: 'CorrectCommencement', card: l.card, reason: l.reason };
  }
}

/** Shoes kept in memory, each a state folded from the events its lines produced. */
export class PureLedger {
  private readonly states = new Map<string, ShoeState>();
  /** Events per shoe, in order. */
  readonly events = new Map<string, NewEvent[]>();
  private n = 0;

  constructor(private readonly tables: readonly SimTable[]) {}

  /** Decides a line against its shoe and folds the events. @throws DomainError when the ledger would refuse it */
  apply(l: TableLogLine): NewEvent[] {
    const state = this.states.get(l.shoeId) ?? initialState();
    const out = decide(state, commandOf(l, this.tables), { newId: () => `e${++this.n}` });
    let s = state;
    for (const e of out) s = evolve(s, e);
    this.states.set(l.shoeId, s);
    const kept = this.events.get(l.shoeId) ?? [];
    kept.push(...out);
    this.events.set(l.shoeId, kept);
    return out;
  }

  /** The folded state of a shoe. */
  state(shoeId: string): ShoeState | undefined {
    return this.states.get(shoeId);
  }
}
