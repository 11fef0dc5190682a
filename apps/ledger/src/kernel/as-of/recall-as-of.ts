/**
 * Game recall as the ledger knew it at a global position (docs/reports.md §3): the live recall
 * (`RecallService.recall`) cut at the position. Pure: everything comes from the recall's own rows,
 * each of which names its event — the round's events (`events`, with their global positions), the
 * outcome revisions and the bets' settlement histories (by `eventId`, all among the round's events).
 *
 * - `events`: those ≤ P; `decisions`: rebuilt from them (a decision approved after P is pending);
 * - `revisions`: those whose event is ≤ P; the round's status, outcome, cards and times are those of
 *   its revision in force at P (OPEN with no outcome before the first result; a correction's cards
 *   replace the dealt ones; a void keeps the last outcome visible, as the projection does);
 * - `bets`: those placed ≤ P, each with its history ≤ P and its state from the latest of it;
 * - `chain` and `anchor` stay as verified now (they say whether the stored events are intact).
 * @returns `null` when the round was not opened by P
 */
export function recallAsOf<R extends RecallLike>(recall: R, position: bigint, decisionChains: (rows: Record<string, unknown>[]) => unknown[]): R | null {
  const events = recall.events.filter((e) => BigInt(e.globalPosition as string) <= position);
  if (!events.some((e) => e.type === 'RoundOpened')) return null;
  const known = new Set(events.map((e) => e.eventId as string));
  const revisions = recall.revisions.filter((r) => known.has(r.eventId as string));
  const placed = new Set(events.filter((e) => e.type === 'BetPlaced').map((e) => (e.data as { betId?: string })?.betId));
  const bets = recall.bets
    .filter((b) => placed.has(b.betId as string))
    .map((b) =>
      betAsOf(
        b,
        (b.history as Row[]).filter((h) => known.has(h.eventId as string)),
      ),
    );
  const rawEvents = events.map((e) => ({ ...snake(e), data: e.data }));
  return { ...recall, round: roundAsOf(recall.round, revisions, events), revisions, events, decisions: decisionChains(rawEvents), bets };
}

type Row = Record<string, unknown>;

/** The parts of a recall answer this cut reads. */
export interface RecallLike {
  round: Row;
  revisions: Row[];
  events: Row[];
  decisions: unknown[];
  bets: Row[];
}

const OUTCOME_FIELDS = ['playerCards', 'bankerCards', 'playerTotal', 'bankerTotal', 'winner', 'isNatural', 'playerPair', 'bankerPair'] as const;

function roundAsOf(round: Row, revisions: Row[], events: Row[]): Row {
  const latest = revisions[revisions.length - 1];
  const outcome = [...revisions].reverse().find((r) => r.kind !== 'VOIDED');
  const corrected = [...revisions].reverse().find((r) => r.kind === 'CORRECTED');
  const voided = revisions.find((r) => r.kind === 'VOIDED');
  const dataOf = (e: Row) => (e.data ?? {}) as Record<string, unknown>;
  const out: Row = { ...round };
  for (const f of OUTCOME_FIELDS) out[f] = outcome ? (outcome[f] ?? null) : null;
  out.status = latest ? (latest.kind === 'RESULTED' ? 'RESULTED' : latest.kind) : 'OPEN';
  out.currentRevision = latest ? latest.revision : 0;
  out.resultEventId = outcome ? outcome.eventId : null;
  if (outcome?.paytableRef) out.paytableRef = outcome.paytableRef;
  out.resultedAt = revisions.find((r) => r.kind === 'RESULTED')?.occurredAt ?? null;
  out.correctedAt = corrected ? corrected.occurredAt : null;
  out.voidCause = voided ? voided.voidCause : null;
  out.voidedAt = voided ? voided.occurredAt : null;
  out.voidEventId = voided ? voided.eventId : null;
  out.cards = corrected ? corrected.cards : events.filter((e) => e.type === 'CardDealt').map((e) => dataOf(e).card);
  out.unneededCards = events.filter((e) => e.type === 'UnneededCardDrawn').map((e) => dataOf(e).card);
  out.bettingClosed = events.some((e) => e.type === 'BettingClosed');
  out.lastHand = events.some((e) => e.type === 'CutCardDrawn' && dataOf(e).timing === 'DURING_DEALING');
  return out;
}

function betAsOf(bet: Row, history: Row[]): Row {
  const latest = history[history.length - 1];
  const settled = [...history].reverse().find((h) => h.kind !== 'REFUNDED');
  const refunded = latest?.kind === 'REFUNDED';
  const amount = (f: string) => (latest && !refunded ? (latest[f] ?? null) : null);
  return {
    ...bet,
    status: latest ? latest.kind : 'OPEN',
    result: amount('result'),
    winnings: amount('winnings'),
    payout: amount('payout'),
    net: amount('net'),
    dropped: amount('dropped'),
    paytableRef: settled ? settled.paytableRef : null,
    revision: settled ? settled.revision : 0,
    refundedStake: refunded ? latest.stake : null,
    settledAt: settled ? settled.occurredAt : null,
    refundedAt: refunded ? latest.occurredAt : null,
    history,
  };
}

/** camelCase row → snake_case (what `decisionChains` reads). */
function snake(e: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(e)) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  return out;
}
