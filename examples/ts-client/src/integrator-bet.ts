import type { components } from './schema';

/** A bet as the betting platform's integration writes it: typed by the generated `BetDto`. */
export type Bet = components['schemas']['BetDto'];

/**
 * An integrator's bet: `stake` is a decimal string of minor units (25.00 EUR). If the contract
 * typed `stake` as a number again, this line would not type-check (TS2322) and the build would fail.
 */
export const INTEGRATOR_BET: Bet = { betId: 'B-000001', accountId: 'acct-42', betCode: 'BANKER', stake: '2500', currency: 'EUR' };
