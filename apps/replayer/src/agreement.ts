import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseCard, Winner } from '@ledger/rules';
import { LedgerClient } from '@ledger/simulator';
import { AUDITOR_ID } from './settlements';

/**
 * The agreement check: each round's outcome as the ledger recorded it (`RoundResulted` in the
 * shoe's stream, read through `GET /shoes/{shoeId}/events`) against what an expected file says
 * (the sidecar `convert-hands` writes next to a converted log).
 */

/** One line of an expected file: what a round must come to. Cards in the order each side received them. */
export interface ExpectedRound {
  readonly shoeId: string;
  readonly roundId: string;
  readonly winner: Winner;
  readonly player: readonly string[];
  readonly banker: readonly string[];
  /** 1-based number of the hand in the source hand history (informational). */
  readonly hand?: number;
  /** 1-based line of the hand in the source file (informational). */
  readonly sourceLine?: number;
}

/** An outcome as `RoundResulted.data.outcome` holds it. */
export interface RecordedOutcome {
  readonly winner: Winner;
  readonly player: readonly string[];
  readonly banker: readonly string[];
}

/** Why a round disagrees. */
export type AgreementReason = 'MISSING' | 'WINNER' | 'PLAYER_CARDS' | 'BANKER_CARDS';

/** One disagreeing round. */
export interface Disagreement {
  readonly expected: ExpectedRound;
  readonly got: RecordedOutcome | null;
  readonly reasons: AgreementReason[];
}

/** The check's counts. */
export interface AgreementReport {
  readonly rounds: number;
  readonly agree: number;
  readonly disagree: number;
  /** Of `disagree`: rounds with no `RoundResulted` in the store. */
  readonly missing: number;
  readonly firstDisagreements: Disagreement[];
}

const canon = (cards: readonly string[]) => cards.map((c) => parseCard(c).code).join(' ');

/** Compares one round (cards by canonical code: `10H` = `TH`). Pure. @returns the reasons, empty when they agree */
export function compareRound(expected: ExpectedRound, got: RecordedOutcome | null | undefined): AgreementReason[] {
  if (!got) return ['MISSING'];
  const reasons: AgreementReason[] = [];
  if (got.winner !== expected.winner) reasons.push('WINNER');
  if (canon(got.player) !== canon(expected.player)) reasons.push('PLAYER_CARDS');
  if (canon(got.banker) !== canon(expected.banker)) reasons.push('BANKER_CARDS');
  return reasons;
}

/**
 * Reads an expected file (JSONL, one {@link ExpectedRound} per line; blank lines skipped).
 * @throws Error naming the line of a line that is not one
 */
export async function readExpected(file: string): Promise<ExpectedRound[]> {
  const out: ExpectedRound[] = [];
  let n = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    n++;
    if (text.trim() === '') continue;
    let e: ExpectedRound;
    try {
      e = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file} line ${n}: not JSON (${(err as Error).message})`);
    }
    const ok = typeof e?.shoeId === 'string' && typeof e.roundId === 'string' && ['PLAYER', 'BANKER', 'TIE'].includes(e.winner) && Array.isArray(e.player) && Array.isArray(e.banker);
    if (!ok) throw new Error(`${file} line ${n}: expected { shoeId, roundId, winner, player: [cards], banker: [cards] }`);
    out.push(e);
  }
  return out;
}

interface StreamPage {
  events: Array<{ type: string; data: { roundId?: string; outcome?: RecordedOutcome } }>;
  nextFromVersion: number | null;
}

/**
 * The outcome of every resulted round of a shoe, from its stream in the store (`RoundResulted`
 * events, role auditor), by round id. Empty when the shoe does not exist.
 */
export async function recordedOutcomes(client: LedgerClient, shoeId: string): Promise<Map<string, RecordedOutcome>> {
  const out = new Map<string, RecordedOutcome>();
  let from: number | null = 1;
  while (from !== null) {
    let page: StreamPage;
    try {
      page = await client.get<StreamPage>('auditor', AUDITOR_ID, `/shoes/${encodeURIComponent(shoeId)}/events?fromVersion=${from}&limit=10000`);
    } catch (e) {
      if ((e as { status?: number }).status === 404) return out;
      throw e;
    }
    for (const ev of page.events) {
      if (ev.type === 'RoundResulted' && ev.data.roundId && ev.data.outcome) out.set(ev.data.roundId, ev.data.outcome);
    }
    from = page.nextFromVersion;
  }
  return out;
}

/** Reads every shoe the expected rounds name and compares round by round. */
export async function checkAgreement(client: LedgerClient, expected: readonly ExpectedRound[], keep = 10): Promise<AgreementReport> {
  const shoes = [...new Set(expected.map((e) => e.shoeId))];
  const recorded = new Map<string, Map<string, RecordedOutcome>>();
  for (const s of shoes) recorded.set(s, await recordedOutcomes(client, s));
  let agree = 0;
  let missing = 0;
  const first: Disagreement[] = [];
  for (const e of expected) {
    const got = recorded.get(e.shoeId)?.get(e.roundId) ?? null;
    const reasons = compareRound(e, got);
    if (reasons.length === 0) {
      agree++;
      continue;
    }
    if (!got) missing++;
    if (first.length < keep) first.push({ expected: e, got, reasons });
  }
  return { rounds: expected.length, agree, disagree: expected.length - agree, missing, firstDisagreements: first };
}
