import { parseCard } from '@ledger/rules';
import type { KeyedLog } from './keyed-log';
import type { ShoeState } from './state';

/**
 * A shoe state as text and back (docs/architecture.md §3, "The shoe cache"): what a snapshot of a
 * shoe stream stores, so that a cache miss folds only the events after it. JSON, with three tagged
 * forms for what JSON cannot hold: `{"$n": "123"}` a bigint (minor units), `{"$card": "9S"}` a card
 * (decoded to the rules library's canonical instance, which `decide` compares by identity), and
 * `{"$log": {"k": [...], "v": [...]}}` a {@link KeyedLog} (the entries its view sees, in order).
 *
 * The text is derived data: whoever reads it back must first prove it is genuine (the API's
 * snapshot store checks a MAC and the chain, docs/guarantees.md §8); decoding checks only its form.
 */

/** Text of `state`, for {@link decodeState}. O(size of the state). */
export function encodeState(state: ShoeState): string {
  return JSON.stringify(state, replacer);
}

/**
 * The state {@link encodeState} wrote. Its KeyedLogs are fresh stores, so evolving it never
 * touches another state.
 * @throws SyntaxError on text that is not JSON; RulesError `CARD.MALFORMED` on a bad card code
 */
export function decodeState(text: string): ShoeState {
  return JSON.parse(text, reviver) as ShoeState;
}

function replacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { $n: value.toString() };
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if ('store' in o && 'size' in o && typeof o.size === 'number') {
      const log = value as KeyedLog<unknown>;
      return { $log: { k: log.store.keys.slice(0, log.size), v: log.store.values.slice(0, log.size) } };
    }
    if (typeof o.code === 'string' && 'rank' in o && 'suit' in o && Object.keys(o).length === 3) return { $card: o.code };
  }
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  if (typeof o.$n === 'string') return BigInt(o.$n);
  if (typeof o.$card === 'string') return parseCard(o.$card);
  if (o.$log !== undefined) {
    const { k, v } = o.$log as { k: string[]; v: unknown[] };
    if (!Array.isArray(k) || !Array.isArray(v) || k.length !== v.length) throw new SyntaxError('a $log needs k and v of the same length');
    const index = new Map<string, number>();
    for (let i = 0; i < k.length; i++) {
      if (typeof k[i] !== 'string' || index.has(k[i])) throw new SyntaxError('a $log needs distinct string keys');
      index.set(k[i], i);
    }
    return { store: { keys: k, values: v, index }, size: k.length } satisfies KeyedLog<unknown>;
  }
  return value;
}
