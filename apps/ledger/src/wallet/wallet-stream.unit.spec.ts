/**
 * The streaming wallet match (docs/reports.md §4.5): {@link WalletMatcher}, fed the file's rows chunk
 * by chunk with their duplicate flag, then asked for the MISSING_IN_WALLET items, gives exactly what
 * the whole-file {@link matchWallet} gives — items (once sorted by the byte keys the database sorts
 * them by), summary, totals and `zeroNotInFile` — on random files and ledgers (ids with characters
 * past U+FFFF and in U+E000..U+FFFF, where UTF-8 byte order and JavaScript's `<` part ways; several
 * currencies and days; duplicates; rows the ledger lacks; zero amounts). And what it holds does not
 * grow with the rows: only the ledger, the ledger's ids a row named, and one group per currency and day.
 */
import type { LedgerTransaction, WalletTxnType } from '../kernel/as-of/wallet-transactions';
import type { WalletRow } from './wallet-file';
import { compareItems, flagDuplicates, matchWallet, scopeOfRows, utf16Key, WalletMatcher, type MatchItem, type MatchScope } from './wallet-match';

/** A seeded generator (mulberry32): the same cases every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const day = (time: string) => time.slice(0, 10);
const TYPES: WalletTxnType[] = ['bet', 'win', 'refund'];
/** Id pieces that sort differently by UTF-8 bytes and by UTF-16 code units, and plain ones. */
const PIECES = ['a', 'b', 'Z', '\u{1F600}', '\uFF21', '\uE000', 'é', '0'];
const DAYS = ['2026-01-04', '2026-01-05', '2026-01-06', '2026-01-07'];
const CURRENCIES = ['EUR', 'USD', 'GBP'];

function randomCase(seed: number): { rows: WalletRow[]; ledger: LedgerTransaction[]; scope: MatchScope } {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const id = () => Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(PIECES)).join('') + `-${Math.floor(rnd() * 40)}`;
  const ledger: LedgerTransaction[] = [];
  for (let i = 0; i < 30 + Math.floor(rnd() * 60); i++) {
    const gamingDay = pick(DAYS);
    ledger.push({
      transactionId: `${id()}:${pick(TYPES)}`,
      type: pick(TYPES),
      betId: `b${i}`,
      roundId: `r${i % 7}`,
      tableId: 't1',
      accountId: `acc${i % 5}`,
      currency: pick(CURRENCIES),
      gamingDay,
      amount: rnd() < 0.2 ? 0n : BigInt(Math.floor(rnd() * 5000) - 1000),
      occurredAt: `${gamingDay}T1${Math.floor(rnd() * 10)}:00:00.000Z`,
    });
  }
  if (ledger.length > 3) ledger.push(ledger[2]); // a transaction given twice counts once
  const rows: WalletRow[] = [];
  for (let line = 2; line < 2 + 50 + Math.floor(rnd() * 250); line++) {
    const l = rnd() < 0.6 ? pick(ledger) : null;
    const prev = rows.length && rnd() < 0.15 ? pick(rows) : null;
    const transactionId = prev ? prev.transactionId : l ? l.transactionId : `${id()}:bet`;
    const time = `${pick(DAYS)}T1${Math.floor(rnd() * 10)}:00:00.000Z`;
    rows.push({
      line,
      transactionId,
      roundId: rnd() < 0.5 ? null : (l?.roundId ?? 'r-x'),
      betId: rnd() < 0.5 ? null : rnd() < 0.9 ? (l?.betId ?? null) : 'b-other',
      accountId: rnd() < 0.7 ? null : (l?.accountId ?? 'acc-x'),
      type: l && rnd() < 0.9 ? l.type : pick(TYPES),
      amount: l && rnd() < 0.8 ? l.amount : BigInt(Math.floor(rnd() * 5000)),
      currency: l && rnd() < 0.9 ? l.currency : pick(CURRENCIES),
      time,
    });
  }
  const scope: MatchScope = rnd() < 0.8 ? scopeOfRows(rows, day)! : { kind: 'period', from: '2026-01-05T00:00:00.000Z', to: '2026-01-06T12:00:00.000Z' };
  return { rows, ledger, scope };
}

/** The byte keys' order, as the database sorts staged items (`ORDER BY k_day, k_currency, k_txn, k_line`). */
const byKeys = (a: MatchItem, b: MatchItem) =>
  Buffer.compare(utf16Key(a.gamingDay), utf16Key(b.gamingDay)) ||
  Buffer.compare(utf16Key(a.currency), utf16Key(b.currency)) ||
  Buffer.compare(utf16Key(a.transactionId), utf16Key(b.transactionId)) ||
  (a.walletLine ?? 0) - (b.walletLine ?? 0);

/** The streaming match of `rows`, in chunks of `chunk` rows, its items sorted by the byte keys. */
function streamed(rows: readonly WalletRow[], ledger: readonly LedgerTransaction[], scope: MatchScope, chunk: number) {
  const m = new WalletMatcher(ledger, scope, day);
  const flagged = flagDuplicates(rows);
  const items: MatchItem[] = [];
  for (let i = 0; i < flagged.length; i += chunk) {
    const out = m.add(flagged.slice(i, i + chunk));
    expect(out).toHaveLength(Math.min(chunk, flagged.length - i));
    items.push(...out);
  }
  for (const out of m.missing(chunk)) {
    expect(out.length).toBeLessThanOrEqual(chunk);
    items.push(...out);
  }
  return { items: items.sort(byKeys), ...m.result() };
}

describe('the streaming wallet match', () => {
  it('Given 200 random files and ledgers, When matched in chunks, Then items, order, summary, totals and zeroNotInFile equal the whole-file match', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { rows, ledger, scope } = randomCase(seed);
      const whole = matchWallet(rows, ledger, scope, day);
      const chunk = 1 + (seed % 37);
      const s = streamed(rows, ledger, scope, chunk);
      expect({ seed, items: s.items }).toEqual({ seed, items: whole.items });
      expect(s.summary).toEqual(whole.summary);
      expect(s.totals).toEqual(whole.totals);
      expect(s.zeroNotInFile).toBe(whole.zeroNotInFile);
      expect(s.itemCount).toBe(whole.items.length);
    }
  });

  it('Given ids past U+FFFF and in U+E000..U+FFFF, Then the byte keys sort as JavaScript compares (UTF-8 bytes would not)', () => {
    const ids = ['\u{1F600}', '\uFF21', '\uE000', 'a', 'ab', '', 'b\u{10000}', 'b\uFFFF'];
    const byJs = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect([...ids].sort((a, b) => Buffer.compare(utf16Key(a), utf16Key(b)))).toEqual(byJs);
    expect([...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))).not.toEqual(byJs);
    const item = (transactionId: string, walletLine: number | null) => ({ gamingDay: '2026-01-05', currency: 'EUR', transactionId, walletLine }) as MatchItem;
    expect(compareItems(item('\u{1F600}', 3), item('\uFF21', 2))).toBeLessThan(0);
    expect(compareItems(item('x', null), item('x', 1))).toBeLessThan(0);
  });

  it('Given 20,000 rows the ledger lacks and 5,000 it has, Then the matcher holds no row: only the ledger, the ids it named and one group per currency and day', () => {
    const ledger: LedgerTransaction[] = Array.from({ length: 100 }, (_, i) => ({
      transactionId: `L${i}:bet`,
      type: 'bet',
      betId: `L${i}`,
      roundId: 'r',
      tableId: 't',
      accountId: 'a',
      currency: 'EUR',
      gamingDay: '2026-01-05',
      amount: 100n,
      occurredAt: '2026-01-05T10:00:00.000Z',
    }));
    const m = new WalletMatcher(ledger, { kind: 'days', fromDay: '2026-01-05', toDay: '2026-01-05' }, day);
    const base = { roundId: null, betId: null, accountId: null, type: 'bet' as const, amount: 100n, currency: 'EUR', time: '2026-01-05T10:00:00.000Z' };
    let line = 1;
    for (let c = 0; c < 25; c++) {
      const chunk = Array.from({ length: 1000 }, (_, i) => ({ ...base, line: ++line, transactionId: c < 20 ? `ghost-${c}-${i}:bet` : `L${i % 100}:bet`, duplicate: c > 20 || (c === 20 && i >= 100) }));
      expect(m.add(chunk)).toHaveLength(1000);
      const f = m.footprint();
      expect(f.ledger).toBe(100);
      expect(f.named).toBeLessThanOrEqual(100);
      expect(f.groups).toBe(1);
    }
    expect([...m.missing(1000)]).toEqual([]);
    expect(m.result().itemCount).toBe(25_000);
    expect(m.result().totals).toMatchObject({ MISSING_IN_LEDGER: 20_000, MATCHED: 100, DUPLICATED: 4900 });
    expect(() => m.add([])).toThrow(/after the missing items/);
  });
});
