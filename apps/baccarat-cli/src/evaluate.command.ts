import { createInterface } from 'node:readline';
import { Command, Option } from 'commander';
import { roundOutcomeData } from '@ledger/events';
import { builtInPaytable, Card, defaultPaytable, evaluateRound, netPerUnit, parseCard, parseVariant, Paytable, RulesError, Variant, VARIANTS, Winner } from '@ledger/rules';

/**
 * `baccarat evaluate --variant classic|tiger|fabulous4 [--paytable id@version]`
 *
 * Reads JSON lines `{"cards": ["2S", "KC", …]}` on stdin (the next cards off the shoe, possibly
 * more than the round needs; `10H` accepted for a ten), deals each round with the tableau
 * (docs/domain-rules.md §2) and writes one JSON line per non-blank input line with the round's result
 * and the net result of a 1-unit stake on every bet code of the variant under the paytable (§3).
 */

/** A successfully evaluated input line. */
export interface EvaluateResult {
  /** 1-based input line number (blank lines are counted). */
  readonly line: number;
  /** Player's card codes in the order received (canonical: `TH`, never `10H`). */
  readonly player: readonly string[];
  /** Banker's card codes in the order received. */
  readonly banker: readonly string[];
  /** Player's total 0..9 (§1). */
  readonly playerTotal: number;
  /** Banker's total 0..9. */
  readonly bankerTotal: number;
  readonly winner: Winner;
  /** Either side had a natural (two-card 8 or 9, §2). */
  readonly natural: boolean;
  readonly playerPair: boolean;
  readonly bankerPair: boolean;
  /** Cards the round took off the front of `cards`: 4, 5 or 6. */
  readonly cardsConsumed: number;
  /**
   * Bet code → net result of a 1-unit stake as an exact decimal string (`netPerUnit`): `"-1"` lost,
   * `"0"` push, the odds on a win (`"0.95"`, `"0.5"`, `"35"`). Every bet code of the variant, in
   * `BET_CODES` order.
   */
  readonly net: Record<string, string>;
}

/** Error codes of an input line that could not be evaluated. */
export type EvaluateErrorCode = 'INPUT.BAD_JSON' | 'INPUT.NO_CARDS' | 'CARD.MALFORMED' | 'TABLEAU.INSUFFICIENT_CARDS' | 'INTERNAL';

/** An input line that could not be evaluated; the run goes on. */
export interface EvaluateError {
  /** 1-based input line number. */
  readonly line: number;
  readonly error: { readonly code: EvaluateErrorCode | string; readonly message: string };
}

/** One output line of `evaluate`. */
export type EvaluateOutput = EvaluateResult | EvaluateError;

/**
 * The paytable `evaluate` uses: `ref` (`id@version`, or a bare id for its latest version) when
 * given, else the variant's default (§3).
 * @throws RulesError `VARIANT.UNKNOWN` for an unknown variant, `PAYTABLE.UNKNOWN` for an unknown
 *   ref, `PAYTABLE.INVALID` when the paytable is of another variant
 */
export function resolvePaytable(variant: string, ref?: string): Paytable {
  const v: Variant = parseVariant(variant);
  if (ref === undefined) return defaultPaytable(v);
  const p = builtInPaytable(ref);
  if (p.variant !== v) {
    throw new RulesError('PAYTABLE.INVALID', `paytable ${p.ref} is for variant ${p.variant}, not ${v}`, { paytable: p.ref, variant: v });
  }
  return p;
}

function failure(line: number, code: string, message: string): EvaluateError {
  return { line, error: { code, message } };
}

/**
 * Evaluates one input line. Pure: no I/O, never throws.
 * @param text the line (JSON `{"cards": [...]}`), without its line break
 * @param line 1-based line number, echoed in the output
 * @param paytable the paytable whose bets are settled (its variant gives the bet codes)
 * @returns `null` for a blank line (skipped, no output); an {@link EvaluateError} for bad JSON
 *   (`INPUT.BAD_JSON`), a value that is not an object with a `cards` array (`INPUT.NO_CARDS`), a
 *   malformed card anywhere in the array (`CARD.MALFORMED`), too few cards to complete the round
 *   (`TABLEAU.INSUFFICIENT_CARDS`); otherwise an {@link EvaluateResult}
 */
export function evaluateLine(text: string, line: number, paytable: Paytable): EvaluateOutput | null {
  if (text.trim() === '') return null;
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (e) {
    return failure(line, 'INPUT.BAD_JSON', `not JSON: ${(e as Error).message}`);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !Array.isArray((input as { cards?: unknown }).cards)) {
    return failure(line, 'INPUT.NO_CARDS', 'expected an object {"cards": [...]} with an array of card codes');
  }
  try {
    const cards: Card[] = (input as { cards: unknown[] }).cards.map(parseCard);
    const { outcome, payoffs } = evaluateRound(paytable, cards);
    const net: Record<string, string> = {};
    for (const [bet, payoff] of payoffs) net[bet] = netPerUnit(payoff);
    return {
      line,
      ...roundOutcomeData(outcome),
      cardsConsumed: outcome.cardsConsumed,
      net,
    };
  } catch (e) {
    if (e instanceof RulesError) return failure(line, e.code, e.message);
    return failure(line, 'INTERNAL', String(e));
  }
}

/** Output is buffered and written in chunks of about this many characters. */
const FLUSH_AT = 64 * 1024;

/**
 * Writes a chunk to stdout and waits for 'drain' when the stream asks for it. Resolves `false`
 * once stdout is gone (EPIPE: the reader, e.g. `head`, closed the pipe), `true` otherwise.
 */
function writeOut(chunk: string): Promise<boolean> {
  const out = process.stdout;
  return new Promise<boolean>((resolve) => {
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      out.off('drain', onDrain);
      out.off('error', onError);
      out.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const onError = (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') process.stderr.write(`baccarat evaluate: stdout: ${e.message}\n`);
      done(false);
    };
    out.on('error', onError);
    out.on('close', onClose);
    if (out.write(chunk)) {
      // resolve on the next turn so a write error reported asynchronously is still seen
      setImmediate(() => done(!out.destroyed));
    } else out.on('drain', onDrain);
  });
}

/**
 * Streams stdin through {@link evaluateLine} to stdout, line by line, honouring back-pressure.
 * Stops quietly when stdout is closed early (EPIPE, e.g. piped into `head`).
 */
async function runEvaluate(paytable: Paytable): Promise<void> {
  // an EPIPE can surface after the last write: never let it crash the process
  process.stdout.on('error', () => undefined);
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let buf = '';
  let lineNo = 0;
  for await (const text of rl) {
    lineNo++;
    const result = evaluateLine(text, lineNo, paytable);
    if (result) buf += JSON.stringify(result) + '\n';
    if (buf.length >= FLUSH_AT) {
      const ok = await writeOut(buf);
      buf = '';
      if (!ok) {
        rl.close();
        process.stdin.destroy();
        return;
      }
    }
  }
  if (buf !== '') await writeOut(buf);
}

/**
 * Registers `evaluate` on the program. Invalid options (unknown variant, unknown paytable,
 * paytable of another variant) write a message to stderr and set exit code 2; otherwise the exit
 * code is 0 whatever the input lines contain.
 */
export function registerEvaluateCommand(program: Command): Command {
  return program
    .command('evaluate')
    .description('deal rounds from JSON lines {"cards": [...]} on stdin; one JSON result line per input line')
    .addOption(new Option('--variant <variant>', 'game variant').choices([...VARIANTS]).makeOptionMandatory())
    .option('--paytable <ref>', "paytable id@version (default: the variant's standard paytable)")
    .action(async (opts: { variant: string; paytable?: string }) => {
      let paytable: Paytable;
      try {
        paytable = resolvePaytable(opts.variant, opts.paytable);
      } catch (e) {
        process.stderr.write(`baccarat evaluate: ${(e as Error).message}\n`);
        process.exitCode = 2;
        return;
      }
      await runEvaluate(paytable);
    });
}
