import { Command } from 'commander';
import { builtInPaytable, computeParSheet, defaultPaytable, MAX_DECKS, ParSheet, Paytable, RulesError, Variant, VARIANTS } from '@ledger/rules';

/**
 * `baccarat par --variant <classic|tiger|fabulous4> --decks <n> [--json] [--paytable <id@version>]`
 *
 * Prints the exact PAR sheet of a paytable for one round off the top of a fresh N-deck shoe
 * (`computeParSheet`, docs/domain-rules.md §1–§3): the probability of every paytable row of every bet
 * and each bet's house edge. A readable table by default; `--json` for one JSON document.
 * Invalid options exit 2 with a message on stderr.
 */

/** Options as commander hands them over (all strings, unvalidated). */
export interface ParCommandOptions {
  readonly variant?: string;
  readonly decks?: string;
  readonly json?: boolean;
  readonly paytable?: string;
}

/** Validated options of `par`. */
export interface ParRequest {
  readonly paytable: Paytable;
  readonly decks: number;
  readonly json: boolean;
}

/** An option `par` refuses; the command reports `message` and exits 2. */
export class ParUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParUsageError';
  }
}

/**
 * Validates `par`'s options.
 * @returns the paytable (`--paytable` when given, which must be of `--variant`, else the variant's
 *   default) and the deck count
 * @throws ParUsageError for a missing or unknown variant, decks not an integer 1..16, an unknown
 *   paytable or a paytable of another variant
 */
export function parseParOptions(opts: ParCommandOptions): ParRequest {
  if (opts.variant === undefined) throw new ParUsageError(`missing --variant <${VARIANTS.join('|')}>`);
  if (!(VARIANTS as readonly string[]).includes(opts.variant)) {
    throw new ParUsageError(`unknown variant ${JSON.stringify(opts.variant)}; expected one of ${VARIANTS.join(', ')}`);
  }
  const variant = opts.variant as Variant;
  if (opts.decks === undefined) throw new ParUsageError(`missing --decks <n> (an integer 1..${MAX_DECKS}; 8 is the norm)`);
  const text = opts.decks.trim();
  const decks = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(decks) || decks < 1 || decks > MAX_DECKS) {
    throw new ParUsageError(`--decks must be an integer 1..${MAX_DECKS}, got ${JSON.stringify(opts.decks)}`);
  }
  let paytable: Paytable;
  if (opts.paytable === undefined) paytable = defaultPaytable(variant);
  else {
    try {
      paytable = builtInPaytable(opts.paytable);
    } catch (e) {
      if (e instanceof RulesError) throw new ParUsageError(`unknown paytable ${JSON.stringify(opts.paytable)} (${e.message})`);
      throw e;
    }
    if (paytable.variant !== variant) {
      throw new ParUsageError(`paytable ${paytable.ref} is for variant ${paytable.variant}, not ${variant}`);
    }
  }
  return { paytable, decks, json: opts.json === true };
}

const round6 = (x: number): number => {
  const r = Number(x.toFixed(6));
  return r === 0 ? 0 : r; // no "-0"
};

/**
 * The `--json` document: `{"variant","decks","paytable","combinations","outcomes":{"bankerWins",
 * "playerWins","tie"},"bets":[{"bet","houseEdge","expectedValue","probabilityWin",
 * "probabilityPush","probabilityLose","rows":[{"row","payoff","probability","combinations",
 * "contribution"}]}]}`. `houseEdge` is the fraction rounded to 6 decimals (Banker 0.95:1, 8 decks:
 * 0.010579); every other number is the full float64 of the exact value; `combinations` are exact
 * integer strings over the sheet's `combinations`.
 */
export function parSheetJson(sheet: ParSheet): Record<string, unknown> {
  return {
    variant: sheet.variant,
    decks: sheet.decks,
    paytable: sheet.paytableRef,
    combinations: sheet.combinations,
    outcomes: { ...sheet.outcomes },
    bets: sheet.bets.map((b) => ({
      bet: b.bet,
      houseEdge: round6(b.houseEdge),
      expectedValue: b.expectedValue,
      probabilityWin: b.probabilityWin,
      probabilityPush: b.probabilityPush,
      probabilityLose: b.probabilityLose,
      rows: b.rows.map((r) => ({ ...r })),
    })),
  };
}

const pct = (x: number, places = 4) => `${(x * 100).toFixed(places)}%`;

/**
 * The readable PAR sheet: a header with the outcome probabilities, then one block per bet with
 * its house edge (in %) and the probability and contribution of each paytable row.
 */
export function formatParSheet(sheet: ParSheet): string {
  const lines: string[] = [];
  lines.push(`PAR sheet: ${sheet.variant}, ${sheet.decks} deck${sheet.decks === 1 ? '' : 's'}, paytable ${sheet.paytableRef}`);
  lines.push('exact: one round off a fresh shoe, cards removed as dealt, every ordered deal equally likely');
  const o = sheet.outcomes;
  lines.push(`outcomes: Banker ${o.bankerWins.toFixed(6)}   Player ${o.playerWins.toFixed(6)}   Tie ${o.tie.toFixed(6)}`);
  lines.push('');
  const header = ['bet', 'house edge', 'row', 'pays', 'probability', 'contribution'];
  const table: string[][] = [];
  for (const b of sheet.bets) {
    b.rows.forEach((r, i) => {
      table.push([i === 0 ? b.bet : '', i === 0 ? pct(b.houseEdge) : '', r.row, r.payoff, r.probability.toFixed(8), (r.contribution >= 0 ? '+' : '') + r.contribution.toFixed(8)]);
    });
  }
  const widths = header.map((h, c) => Math.max(h.length, ...table.map((row) => row[c].length)));
  const right = new Set([1, 4, 5]);
  const fmt = (row: string[]) =>
    row
      .map((cell, c) => (right.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  lines.push(fmt(header));
  lines.push(fmt(widths.map((w) => '-'.repeat(w))));
  let previousBet = '';
  for (const row of table) {
    if (row[0] !== '' && previousBet !== '') lines.push('');
    if (row[0] !== '') previousBet = row[0];
    lines.push(fmt(row));
  }
  return lines.join('\n') + '\n';
}

/**
 * Registers `par` on the program: `par --variant <classic|tiger|fabulous4> --decks <n> [--json]
 * [--paytable <id@version>]`. Writes the sheet through the program's output configuration
 * (stdout by default). Invalid options (missing or unknown variant, decks not an integer 1..16,
 * unknown paytable, paytable of another variant) go through `command.error` with exit code 2:
 * the message on stderr, then `process.exit(2)` — or a `CommanderError` with `exitCode` 2 when the
 * program uses `exitOverride()`.
 * @returns the `par` subcommand
 */
export function registerParCommand(program: Command): Command {
  const cmd = program
    .command('par')
    .description('exact PAR sheet (probabilities and house edge of every bet) of a variant for an N-deck shoe')
    .option('--variant <variant>', `game variant: ${VARIANTS.join(', ')}`)
    .option('--decks <n>', `decks in the shoe, an integer 1..${MAX_DECKS}`)
    .option('--json', 'one JSON document instead of the table')
    .option('--paytable <ref>', "paytable id@version (default: the variant's standard paytable)");
  cmd.action((opts: ParCommandOptions) => {
    let request: ParRequest;
    try {
      request = parseParOptions(opts);
    } catch (e) {
      if (e instanceof ParUsageError) {
        cmd.error(`error: ${e.message}`, { exitCode: 2, code: 'baccarat.par.invalidOption' });
      }
      throw e;
    }
    const sheet = computeParSheet(request.paytable, request.decks);
    const text = request.json ? JSON.stringify(parSheetJson(sheet), null, 2) + '\n' : formatParSheet(sheet);
    const write = cmd.configureOutput().writeOut ?? ((s: string) => process.stdout.write(s));
    write(text);
  });
  return cmd;
}
