import { card as cardOfRankAndSuit, parseCard, type Card } from '@ledger/rules';
import type { ManagementDecision, TableSettings } from '@ledger/events';
import type { CardAccounting } from '../accounting';
import type { CardInput, DecisionInput } from '../commands';
import { DomainError } from '../errors';
import { findRound, latestRound, type RoundState, type ShoeState } from '../state';

/**
 * The checks every area of `decide` shares: which shoe and round a command may act on, the
 * shape of its ids, cards, reasons and management decisions, and the refusals more than one
 * area raises. Pure; every function either returns what it checked or throws a
 * {@link DomainError}. Section signs (§) are those of docs/domain-rules.md.
 */

/** A state whose shoe has been opened: the fields ShoeOpened sets are present. */
export type OpenedShoe = ShoeState & {
  readonly shoeId: string;
  readonly tableId: string;
  readonly openedEventId: string;
  readonly settings: TableSettings;
  readonly dealerId: string;
  readonly cards: CardAccounting;
};

/** The shoe, whatever its status once opened (management decisions). @throws `SHOE.NOT_FOUND` */
export function requireShoe(s: ShoeState): OpenedShoe {
  if (s.status === 'NONE' || !s.settings || !s.cards) throw new DomainError('SHOE.NOT_FOUND', 'no shoe has been opened on this stream');
  return s as OpenedShoe;
}

/** The shoe, open to table facts and bets. @throws `SHOE.NOT_FOUND`, `SHOE.CLOSED`, `SHOE.VOIDED` */
export function requireTable(s: ShoeState): OpenedShoe {
  const shoe = requireShoe(s);
  if (shoe.status === 'CLOSED') throw new DomainError('SHOE.CLOSED', `shoe ${shoe.shoeId} is closed`, { shoeId: shoe.shoeId });
  if (shoe.status === 'VOIDED') throw new DomainError('SHOE.VOIDED', `shoe ${shoe.shoeId} is voided`, { shoeId: shoe.shoeId });
  return shoe;
}

/** Any round of the shoe. @throws `ROUND.NOT_FOUND` */
export function requireRound(s: ShoeState, roundId: string): RoundState {
  const r = typeof roundId === 'string' ? findRound(s, roundId) : undefined;
  if (!r) throw new DomainError('ROUND.NOT_FOUND', `no round ${String(roundId)} in this shoe`, { roundId });
  return r;
}

/** The shoe's latest round, named by the command. @throws `ROUND.NOT_FOUND`, `ROUND.NOT_CURRENT` */
export function requireLatestRound(s: ShoeState, roundId: string): RoundState {
  const r = requireRound(s, roundId);
  const latest = latestRound(s)!;
  if (r !== latest) {
    throw new DomainError('ROUND.NOT_CURRENT', `round ${roundId} is not the current round (${latest.roundId} is)`, { roundId, currentRoundId: latest.roundId });
  }
  return r;
}

/** A non-empty string id. @throws `COMMAND.INVALID` naming `field` */
export function requireId(v: unknown, field: string): asserts v is string {
  if (typeof v !== 'string' || v.trim() === '') throw new DomainError('COMMAND.INVALID', `${field} is required`, { field });
}

/**
 * The card a command names (§1): a {@link Card} parsed at the edge is taken as it is (the HTTP
 * write side parses a request's card once, in its controller); text is parsed here.
 * @returns the canonical card (the same object for the same card)
 * @throws `CARD.MALFORMED` (a RulesError, passed through as a DomainError by `decide`)
 */
export function requireCard(input: CardInput): Card {
  return isCanonicalCard(input) ? input : parseCard(input);
}

/** Whether `v` is one of the rules library's canonical, frozen cards (not a look-alike object). */
function isCanonicalCard(v: unknown): v is Card {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Partial<Card>;
  return cardOfRankAndSuit(c.rank!, c.suit!) === v;
}

/**
 * §6: a reason (3..500 characters), an acting and a second, approving manager who differ and
 * neither of whom is the dealer concerned.
 * @param compensates eventId of what the decision compensates
 * @param details context merged into every refusal (`roundId` or `shoeId`)
 * @throws `MANAGEMENT.REASON_REQUIRED`, `MANAGEMENT.MANAGER_REQUIRED`, `MANAGEMENT.SAME_APPROVER`,
 *   `MANAGEMENT.DEALER_CANNOT_DECIDE`
 */
export function checkDecision(input: DecisionInput, dealerIds: string | readonly string[], compensates: string, details: Record<string, unknown>): ManagementDecision {
  if (!input || typeof input !== 'object') throw new DomainError('MANAGEMENT.REASON_REQUIRED', 'a management decision needs a reason and two managers', details);
  const reason = checkReason(input.reason, 'MANAGEMENT.REASON_REQUIRED');
  const acting = input.actingManagerId;
  const approver = input.approverId;
  if (typeof acting !== 'string' || acting.trim() === '' || typeof approver !== 'string' || approver.trim() === '') {
    throw new DomainError('MANAGEMENT.MANAGER_REQUIRED', 'a management decision needs an acting and an approving manager', details);
  }
  if (acting === approver) {
    throw new DomainError('MANAGEMENT.SAME_APPROVER', 'the approving manager must differ from the acting one', { ...details, managerId: acting });
  }
  // Every dealer concerned: for a shoe void, the dealer of every round of the shoe (§6).
  for (const dealerId of typeof dealerIds === 'string' ? [dealerIds] : dealerIds) {
    if (acting === dealerId || approver === dealerId) {
      throw new DomainError('MANAGEMENT.DEALER_CANNOT_DECIDE', `${dealerId} dealt it and may not decide on it`, { ...details, dealerId });
    }
  }
  const decision: ManagementDecision = { reason, actingManagerId: acting, approverId: approver, compensates };
  return { ...decision, ...(input.decisionId ? { decisionId: input.decisionId } : {}), ...(input.evidence ? { evidence: input.evidence } : {}) };
}

/** White space and invisible format characters (zero-width space, joiners, BOM, direction marks): none of them is read. */
const UNSEEN = /[\s\p{Cf}]/gu;

/**
 * A reason of 3..500 characters once trimmed, at least 3 of them visible (docs/domain-rules.md §6:
 * neither white space nor an invisible format character such as U+200B, which would record a
 * reason no one can read); returns it trimmed.
 * @throws DomainError `code`, details `{ length, visible }` (UTF-16 units once trimmed; visible characters)
 */
export function checkReason(reason: unknown, code: 'MANAGEMENT.REASON_REQUIRED' | 'COMMENCEMENT.REASON_REQUIRED'): string {
  const r = typeof reason === 'string' ? reason.trim() : '';
  const visible = r.replace(UNSEEN, '').length;
  if (r.length < 3 || r.length > 500 || visible < 3) throw new DomainError(code, 'a reason of 3 to 500 characters, at least 3 of them visible, is required', { length: r.length, visible });
  return r;
}

/** `ROUND.IN_PROGRESS`: a round is still in BETTING or DEALING (OpenRound, CloseShoe). */
export function roundInProgress(r: RoundState): DomainError {
  return new DomainError('ROUND.IN_PROGRESS', `round ${r.roundId} is still ${r.phase}`, { roundId: r.roundId, phase: r.phase });
}

/** `COMMENCEMENT.INCOMPLETE` (§5.1): the commencement card is not drawn or its burns are not done. */
export function commencementIncomplete(s: ShoeState): DomainError {
  const c = s.commencement;
  return new DomainError(
    'COMMENCEMENT.INCOMPLETE',
    c ? `commencement burns not done: ${c.burnsDone} of ${c.burnCount}` : 'the commencement card has not been drawn',
    c ? { commencementCard: c.card, burnCount: c.burnCount, burnsDone: c.burnsDone } : {},
  );
}

/** `ROUND.NOT_DEALING`: the round is not being dealt (resulted, voided, or bets open). */
export function notDealing(r: RoundState): DomainError {
  return new DomainError('ROUND.NOT_DEALING', `round ${r.roundId} is not being dealt (${r.phase})`, { roundId: r.roundId, phase: r.phase });
}

/** `ROUND.ALREADY_VOIDED`. */
export function alreadyVoided(r: RoundState): DomainError {
  return new DomainError('ROUND.ALREADY_VOIDED', `round ${r.roundId} is already voided (${r.voided?.cause})`, { roundId: r.roundId, cause: r.voided?.cause });
}

/** `CARD.WRONG_PHASE` (§5.3, §5.5): an exposed or dropped card reported in a phase it cannot have happened in. */
export function wrongPhase(phase: string | null, why: string): DomainError {
  return new DomainError('CARD.WRONG_PHASE', why, { phase });
}
