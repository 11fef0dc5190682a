/**
 * Shared fixtures of the shoe's unit specs (`*.unit.spec.ts`). Holds no test itself; named
 * `*.spec.ts` so the build leaves it out. No mocks: histories are built by running commands
 * through the real `decide` and `evolve`.
 */
import { BET_CODES, nextPosition, parseCard, RANKS, SUITS, type Card, type Variant } from '@ledger/rules';
import type { LedgerEventType, NewEvent, TableSettings } from '@ledger/events';
import type { BetInput, DecideContext, DecisionInput, ShoeCommand } from './commands';
import { decide } from './decide';
import { DomainError, type DomainErrorCode } from './errors';
import { evolve, fold } from './evolve';
import { initialState, type ShoeState } from './state';

/** Deterministic event ids `<prefix>1`, `<prefix>2`, … */
export function counterIds(prefix = 'e'): DecideContext {
  let n = 0;
  return { newId: () => `${prefix}${++n}` };
}

/** Default paytable ref of each variant. */
export const PAYTABLE: Record<Variant, string> = {
  classic: 'classic-standard@1',
  tiger: 'tiger-standard@1',
  fabulous4: 'fabulous4-standard@1',
};

/** Table settings with limits 100..100000 minor units on every bet code of the variant. */
export function settings(overrides: Partial<TableSettings> = {}): TableSettings {
  const variant = overrides.variant ?? 'classic';
  const limits: Record<string, { min: string; max: string }> = {};
  for (const code of BET_CODES[variant] ?? []) limits[code] = { min: '100', max: '100000' };
  return {
    variant,
    decks: 8,
    virtualTable: false,
    paytableRef: PAYTABLE[variant],
    pairBetsRequireMainBet: false,
    currency: 'EUR',
    limits,
    ...overrides,
  };
}

/** A management decision by two pit managers who are not the dealer `D1`. */
export const DECISION: DecisionInput = { reason: 'dealer misread the third card', actingManagerId: 'PM1', approverId: 'PM2' };

/** A bet input with defaults: account A1, EUR, stake 1000. */
export function bet(betId: string, betCode: string, stake: bigint = 1000n, accountId = 'A1', currency = 'EUR'): BetInput {
  return { betId, accountId, betCode, stake, currency };
}

/**
 * A table driven through the real decide/evolve: `run` decides a command, folds its events and
 * keeps them, so `events` is a valid history to use as the "given" of a spec.
 */
export class Table {
  state: ShoeState = initialState();
  readonly events: NewEvent[] = [];
  constructor(readonly ctx: DecideContext = counterIds('g')) {}

  run(command: ShoeCommand): NewEvent[] {
    const out = decide(this.state, command, this.ctx);
    for (const e of out) {
      this.state = evolve(this.state, e);
      this.events.push(e);
    }
    return out;
  }

  /** OpenShoe on table T1 with dealer D1. */
  open(overrides: Partial<TableSettings> = {}): this {
    this.run({ type: 'OpenShoe', shoeId: 'S1', tableId: 'T1', dealerId: 'D1', settings: settings(overrides) });
    return this;
  }

  /** Commencement card then every burn (face down). Default `AS`: one burn. */
  commence(card = 'AS'): this {
    this.run({ type: 'DrawCommencementCard', card });
    while (this.state.commencement!.burnsDone < this.state.commencement!.burnCount) this.run({ type: 'BurnCard', card: null });
    return this;
  }

  /** OpenRound + PlaceBets (if any) + CloseBetting. */
  round(roundId: string, bets: readonly BetInput[] = [], close = true): this {
    this.run({ type: 'OpenRound', roundId });
    if (bets.length) this.run({ type: 'PlaceBets', roundId, bets });
    if (close) this.run({ type: 'CloseBetting', roundId });
    return this;
  }

  /** Deals `cards` to the round at the positions the tableau calls for. */
  deal(roundId: string, cards: string): NewEvent[] {
    const out: NewEvent[] = [];
    for (const code of cards.split(/\s+/).filter(Boolean)) {
      const dealt = this.state.rounds.find((r) => r.roundId === roundId)!.cards;
      const position = nextPosition(dealt) ?? 'B3';
      out.push(...this.run({ type: 'DealCard', roundId, position, card: code }));
    }
    return out;
  }
}

/** A table opened and commenced (`AS`, one face-down burn), ready for round 1. */
export function readyTable(overrides: Partial<TableSettings> = {}): Table {
  return new Table().open(overrides).commence();
}

/** Given a history, when a command: the events decided, and the state after them. */
export function when(given: readonly NewEvent[], command: ShoeCommand, ctx: DecideContext = counterIds('w')) {
  const before = fold(given);
  const events = decide(before, command, ctx);
  return { before, events, after: fold(events, before) };
}

/** Given a history, when a command: the DomainError it is refused with (fails if none). */
export function refusal(given: readonly NewEvent[], command: ShoeCommand): DomainError {
  const state = fold(given);
  try {
    decide(state, command, counterIds('w'));
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error(`expected ${command.type} to be refused`);
}

/** Asserts the command is refused with `code`; returns the error for checks of its details. */
export function expectRefused(given: readonly NewEvent[], command: ShoeCommand, code: DomainErrorCode): DomainError {
  const err = refusal(given, command);
  expect({ code: err.code, message: err.message }).toEqual({ code, message: expect.any(String) });
  return err;
}

/** The types of a list of events. */
export function types(events: readonly NewEvent[]): LedgerEventType[] {
  return events.map((e) => e.type);
}

/** The events of one type, narrowed. */
export function ofType<T extends LedgerEventType>(events: readonly NewEvent[], type: T): NewEvent<T>[] {
  return events.filter((e) => e.type === type) as NewEvent<T>[];
}

// --------------------------------------------------------------------------------------------
// Seeded shuffles (test-only randomness; the library never draws random numbers)
// --------------------------------------------------------------------------------------------

/** mulberry32: a tiny deterministic PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A shoe of `decks` decks shuffled by Fisher–Yates with {@link mulberry32}(`seed`). */
export function shuffledShoe(decks: number, seed: number): Card[] {
  const cards: Card[] = [];
  for (let d = 0; d < decks; d++) for (const r of RANKS) for (const s of SUITS) cards.push(parseCard(`${r}${s}`));
  const rnd = mulberry32(seed);
  for (let i = cards.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}
