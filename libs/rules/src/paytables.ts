import { RulesError } from './errors';
import { parseOdds } from './money';
import { Payoff } from './settlement';
import { RoundOutcome } from './tableau';
import { BET_CODES, BetCode, matchingRows, ROW_KEYS, Variant } from './variants';

/**
 * Paytables as versioned data (docs/domain-rules.md §3): an operator changes odds without a release,
 * and every settlement records the `id@version` it used. A row's value is `"X:Y"` odds (profit X
 * per Y staked) or `"push"`. Rows a paytable leaves out lose.
 */

/** A side-bet window: `bets` are offered on the first `firstHands` rounds of a shoe only. */
export interface SideBetWindow {
  readonly bets: readonly BetCode[];
  /** Rounds opened in the shoe (voided ones included) on which the bets are offered: 1..firstHands. */
  readonly firstHands: number;
  /** The window does not apply on virtual tables. */
  readonly virtualExempt: boolean;
}

/** A paytable as stored and exchanged: plain JSON-able data. */
export interface PaytableDefinition {
  /** Family id, e.g. `classic-standard`. */
  readonly id: string;
  /** Version within the family; a new odds set is a new version, never an edit. */
  readonly version: number;
  readonly variant: Variant;
  readonly description: string;
  /** bet code → row key (see `ROW_KEYS`) → `"X:Y"` or `"push"`. */
  readonly rows: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly windows: readonly SideBetWindow[];
}

/** A validated paytable ready for settlement. */
export interface Paytable {
  readonly definition: PaytableDefinition;
  /** `id@version`, the reference each settlement records. */
  readonly ref: string;
  readonly variant: Variant;
  /** bet code → row key → payoff */
  readonly payoffs: ReadonlyMap<BetCode, ReadonlyMap<string, Payoff>>;
}

const W60 = (bets: BetCode[]): SideBetWindow => ({ bets, firstHands: 60, virtualExempt: true });

/** Classic with Lucky Pairs, Banker 0.95:1 (§3.1). */
export const CLASSIC_STANDARD_V1: PaytableDefinition = {
  id: 'classic-standard',
  version: 1,
  variant: 'classic',
  description: 'Classic baccarat, 5% commission on Banker, Lucky Pairs 11:1, Either Pair 5:1 (docs/domain-rules.md §3.1)',
  rows: {
    PLAYER: { WIN: '1:1', TIE: 'push' },
    BANKER: { WIN: '0.95:1', TIE: 'push' },
    TIE: { WIN: '8:1' },
    PLAYER_PAIR: { WIN: '11:1' },
    BANKER_PAIR: { WIN: '11:1' },
    EITHER_PAIR: { WIN: '5:1' },
  },
  windows: [],
};

/** Classic, no-commission option (§3.1): Banker pays 1:1 except a win on 6 pays 1:2. */
export const CLASSIC_NO_COMMISSION_V1: PaytableDefinition = {
  ...CLASSIC_STANDARD_V1,
  id: 'classic-no-commission',
  description: 'Classic baccarat, no commission: Banker 1:1, Banker winning on 6 pays 1:2 (docs/domain-rules.md §3.1 option)',
  rows: { ...CLASSIC_STANDARD_V1.rows, BANKER: { WIN_TOTAL_6: '1:2', WIN: '1:1', TIE: 'push' } },
};

/** Tiger Baccarat (§3.2). */
export const TIGER_STANDARD_V1: PaytableDefinition = {
  id: 'tiger-standard',
  version: 1,
  variant: 'tiger',
  description: 'Tiger Baccarat (docs/domain-rules.md §3.2; Big Tiger per the Thai sheet)',
  rows: {
    PLAYER: { WIN: '1:1', TIE: 'push' },
    BANKER: { WIN_TOTAL_6: '0.5:1', WIN: '1:1', TIE: 'push' },
    TIE: { WIN: '8:1' },
    TIGER_TIE: { WIN: '35:1' },
    TIGER_PAIR: { ONE_PAIR: '4:1', TWO_PAIRS: '20:1', TWIN_PAIRS: '100:1' },
    TIGER: { SIX_ON_TWO_CARDS: '12:1', SIX_ON_THREE_CARDS: '18:1' },
    BIG_TIGER: { SIX_ON_THREE_CARDS: '50:1' },
    SMALL_TIGER: { SIX_ON_TWO_CARDS: '22:1' },
  },
  windows: [W60(['TIGER_PAIR', 'TIGER', 'BIG_TIGER', 'SMALL_TIGER'])],
};

/** Fabulous 4 Baccarat (§3.3). */
export const FABULOUS4_STANDARD_V1: PaytableDefinition = {
  id: 'fabulous4-standard',
  version: 1,
  variant: 'fabulous4',
  description: 'Fabulous 4 Baccarat (docs/domain-rules.md §3.3)',
  rows: {
    PLAYER: { WIN_TOTAL_4: '1:2', WIN_TOTAL_1: '2:1', WIN: '1:1', TIE: 'push' },
    BANKER: { WIN_TOTAL_4: 'push', WIN_TOTAL_1: '2:1', WIN: '1:1', TIE: 'push' },
    TIE: { WIN: '8:1' },
    PLAYER_FABULOUS_PAIR: { SUITED: '1:1', PAIR: '4:1', SUITED_PAIR: '7:1' },
    BANKER_FABULOUS_PAIR: { SUITED: '1:1', PAIR: '4:1', SUITED_PAIR: '7:1' },
    PLAYER_FABULOUS_4: { WIN_TOTAL_4: '40:1' },
    BANKER_FABULOUS_4: { WIN_TOTAL_4: '20:1' },
  },
  windows: [W60(['PLAYER_FABULOUS_PAIR', 'BANKER_FABULOUS_PAIR'])],
};

/** Every paytable shipped with the ledger. */
export const BUILT_IN_PAYTABLES: readonly PaytableDefinition[] = [CLASSIC_STANDARD_V1, CLASSIC_NO_COMMISSION_V1, TIGER_STANDARD_V1, FABULOUS4_STANDARD_V1];

/** The default paytable of each variant (docs/domain-rules.md §3). */
export const DEFAULT_PAYTABLE: Record<Variant, PaytableDefinition> = {
  classic: CLASSIC_STANDARD_V1,
  tiger: TIGER_STANDARD_V1,
  fabulous4: FABULOUS4_STANDARD_V1,
};

/**
 * Validates a paytable definition and prepares it for settlement: every bet code of the variant
 * must have rows, every row key must be one the bet can match, every value must parse.
 * @throws RulesError `PAYTABLE.INVALID` naming the fault
 */
export function compilePaytable(def: PaytableDefinition): Paytable {
  const fail = (msg: string): never => {
    throw new RulesError('PAYTABLE.INVALID', `paytable ${def.id}@${def.version}: ${msg}`);
  };
  if (!def.id || !Number.isInteger(def.version) || def.version < 1) fail('needs an id and a positive integer version');
  const codes = BET_CODES[def.variant] as readonly BetCode[] | undefined;
  if (!codes) fail(`unknown variant ${def.variant}`);
  const payoffs = new Map<BetCode, Map<string, Payoff>>();
  for (const bet of Object.keys(def.rows)) {
    if (!codes!.includes(bet as BetCode)) fail(`bet ${bet} is not a bet of ${def.variant}`);
  }
  for (const bet of codes!) {
    const rows = def.rows[bet];
    if (!rows || Object.keys(rows).length === 0) fail(`no rows for bet ${bet}`);
    const m = new Map<string, Payoff>();
    for (const [key, value] of Object.entries(rows)) {
      if (!ROW_KEYS[bet].includes(key)) fail(`row ${key} is not a row of ${bet} (rows: ${ROW_KEYS[bet].join(', ')})`);
      if (value === 'push') m.set(key, { kind: 'PUSH' });
      else {
        try {
          m.set(key, { kind: 'WIN', odds: parseOdds(value) });
        } catch (e) {
          fail(`${bet}.${key}: ${(e as Error).message}`);
        }
      }
    }
    payoffs.set(bet, m);
  }
  for (const w of def.windows) {
    if (!Number.isInteger(w.firstHands) || w.firstHands < 1) fail('a window needs firstHands ≥ 1');
    for (const b of w.bets) if (!codes!.includes(b)) fail(`window names ${b}, not a bet of ${def.variant}`);
  }
  return { definition: def, ref: `${def.id}@${def.version}`, variant: def.variant, payoffs };
}

/**
 * The payoff of `bet` for a resulted round: the first row of `matchingRows` the paytable
 * defines, or LOSE.
 * @throws RulesError `BET.UNKNOWN_CODE` when the paytable has no such bet
 */
export function payoffFor(paytable: Paytable, bet: BetCode, outcome: RoundOutcome): Payoff {
  const rows = paytable.payoffs.get(bet);
  if (!rows) throw new RulesError('BET.UNKNOWN_CODE', `bet ${bet} is not offered by paytable ${paytable.ref}`);
  for (const key of matchingRows(bet, outcome)) {
    const p = rows.get(key);
    if (p) return p;
  }
  return { kind: 'LOSE' };
}

/**
 * Whether a bet is offered on a round, given side-bet windows (§3.2, §3.3).
 * @param handNumber the round's number in its shoe, 1-based, voided rounds counted
 * @param virtualTable virtual tables are exempt from windows marked `virtualExempt`
 */
export function isBetOffered(paytable: Paytable, bet: BetCode, handNumber: number, virtualTable: boolean): boolean {
  if (!paytable.payoffs.has(bet)) return false;
  for (const w of paytable.definition.windows) {
    if (!w.bets.includes(bet)) continue;
    if (virtualTable && w.virtualExempt) continue;
    if (handNumber > w.firstHands) return false;
  }
  return true;
}

const COMPILED = new Map<string, Paytable>();

/**
 * Looks up a built-in paytable by `id@version` (or the bare id for its latest version).
 * @throws RulesError `PAYTABLE.UNKNOWN`
 */
export function builtInPaytable(ref: string): Paytable {
  const hit = COMPILED.get(ref);
  if (hit) return hit;
  const [id, v] = ref.split('@');
  const candidates = BUILT_IN_PAYTABLES.filter((p) => p.id === id && (v === undefined || String(p.version) === v));
  if (candidates.length === 0) throw new RulesError('PAYTABLE.UNKNOWN', `no paytable ${ref}`);
  const def = candidates.reduce((a, b) => (b.version > a.version ? b : a));
  const compiled = compilePaytable(def);
  COMPILED.set(ref, compiled);
  return compiled;
}

/** The compiled default paytable of a variant. */
export function defaultPaytable(variant: Variant): Paytable {
  const d = DEFAULT_PAYTABLE[variant];
  return builtInPaytable(`${d.id}@${d.version}`);
}
