import { builtInPaytable, isBetCodeOf, MAX_STAKE_MINOR, parseVariant } from '@ledger/rules';
import type { NewEvent, TableSettings } from '@ledger/events';
import { cardsRemaining, newAccounting } from '../accounting';
import type { DecideContext, ShoeCommandOf } from '../commands';
import { DomainError } from '../errors';
import { currentRound, type ShoeState } from '../state';
import { requireId, requireTable, roundInProgress } from './guards';

/**
 * The shoe's life at the table: it is opened with a snapshot of its table's settings, its dealer
 * changes between rounds, and it is closed once no round is in progress. (Voiding a shoe is a
 * management decision: management.ts.) Section signs (§) are those of docs/domain-rules.md.
 */

const CURRENCY = /^[A-Z]{3}$/;
const DIGITS = /^\d+$/;

/**
 * `OpenShoe` → ShoeOpened, the settings checked and the paytable ref normalised to `id@version`.
 * @throws `SHOE.ALREADY_OPENED`, `COMMAND.INVALID` (an id missing), `VARIANT.UNKNOWN`,
 *   `SHOE.INVALID_DECK_COUNT` (1..16), `PAYTABLE.UNKNOWN`, `PAYTABLE.VARIANT_MISMATCH`,
 *   `BET.UNKNOWN_CODE` (a limit for a bet the variant lacks), `SETTINGS.INVALID`
 */
export function openShoe(s: ShoeState, cmd: ShoeCommandOf<'OpenShoe'>, ctx: DecideContext): NewEvent[] {
  if (s.status !== 'NONE') throw new DomainError('SHOE.ALREADY_OPENED', `shoe ${s.shoeId} is already open on this stream`, { shoeId: s.shoeId });
  requireId(cmd.shoeId, 'shoeId');
  requireId(cmd.tableId, 'tableId');
  requireId(cmd.dealerId, 'dealerId');
  const settings = validateSettings(cmd.settings);
  return [
    {
      eventId: ctx.newId(),
      type: 'ShoeOpened',
      data: { shoeId: cmd.shoeId, tableId: cmd.tableId, dealerId: cmd.dealerId, ...settings },
    },
  ];
}

/**
 * Checks the table's settings (§3 variant and paytable, §4 limits in minor units); returns them
 * with the paytable ref normalised to `id@version` and the limits to canonical decimal strings.
 */
function validateSettings(t: TableSettings): TableSettings {
  if (!t || typeof t !== 'object') throw new DomainError('SETTINGS.INVALID', 'table settings are required');
  const variant = parseVariant(t.variant);
  newAccounting(t.decks); // SHOE.INVALID_DECK_COUNT unless an integer 1..16
  const paytable = builtInPaytable(String(t.paytableRef)); // PAYTABLE.UNKNOWN
  if (paytable.variant !== variant) {
    throw new DomainError('PAYTABLE.VARIANT_MISMATCH', `paytable ${paytable.ref} is for ${paytable.variant}, the table plays ${variant}`, {
      paytableRef: paytable.ref,
      paytableVariant: paytable.variant,
      variant,
    });
  }
  if (typeof t.currency !== 'string' || !CURRENCY.test(t.currency)) {
    throw new DomainError('SETTINGS.INVALID', `currency must be an ISO 4217 code like "EUR", got ${JSON.stringify(t.currency)}`, {
      field: 'currency',
    });
  }
  for (const field of ['virtualTable', 'pairBetsRequireMainBet'] as const) {
    if (typeof t[field] !== 'boolean') throw new DomainError('SETTINGS.INVALID', `${field} must be a boolean`, { field });
  }
  const limits: Record<string, { min: string; max: string }> = {};
  for (const [code, l] of Object.entries(t.limits ?? {})) {
    if (!isBetCodeOf(variant, code)) {
      throw new DomainError('BET.UNKNOWN_CODE', `limits name ${code}, not a bet of ${variant}`, { betCode: code, variant });
    }
    const ok = l && typeof l.min === 'string' && typeof l.max === 'string' && DIGITS.test(l.min) && DIGITS.test(l.max);
    const min = ok ? BigInt(l.min) : 0n;
    const max = ok ? BigInt(l.max) : 0n;
    if (!ok || min < 1n || max < min || max > MAX_STAKE_MINOR) {
      throw new DomainError('SETTINGS.INVALID', `limits of ${code} must be minor-unit integers with 1 ≤ min ≤ max ≤ 2^53−1`, {
        field: `limits.${code}`,
        limits: l,
      });
    }
    limits[code] = { min: min.toString(), max: max.toString() };
  }
  return {
    variant,
    decks: t.decks,
    virtualTable: t.virtualTable,
    paytableRef: paytable.ref,
    pairBetsRequireMainBet: t.pairBetsRequireMainBet,
    currency: t.currency,
    limits,
  };
}

/**
 * `ChangeDealer` → DealerChanged. Between rounds or while bets are open (the betting round then
 * takes the new dealer), never mid-dealing.
 * @throws `COMMAND.INVALID`, `DEALER.CHANGE_MID_DEALING`, `DEALER.UNCHANGED`
 */
export function changeDealer(s: ShoeState, cmd: ShoeCommandOf<'ChangeDealer'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  requireId(cmd.dealerId, 'dealerId');
  const cur = currentRound(shoe);
  if (cur?.phase === 'DEALING') {
    throw new DomainError('DEALER.CHANGE_MID_DEALING', `round ${cur.roundId} is being dealt; change the dealer between rounds or while bets are open`, {
      roundId: cur.roundId,
    });
  }
  if (cmd.dealerId === shoe.dealerId) throw new DomainError('DEALER.UNCHANGED', `${cmd.dealerId} is already the dealer`, { dealerId: cmd.dealerId });
  return [{ eventId: ctx.newId(), type: 'DealerChanged', data: { previousDealerId: shoe.dealerId, dealerId: cmd.dealerId } }];
}

/**
 * `CloseShoe` → ShoeClosed with the rounds resulted and the cards left in the shoe.
 * @throws `ROUND.IN_PROGRESS`
 */
export function closeShoe(s: ShoeState, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const cur = currentRound(shoe);
  if (cur) throw roundInProgress(cur);
  const roundsPlayed = shoe.rounds.filter((r) => r.phase === 'RESULTED').length;
  return [{ eventId: ctx.newId(), type: 'ShoeClosed', data: { roundsPlayed, cardsRemaining: cardsRemaining(shoe.cards) } }];
}
