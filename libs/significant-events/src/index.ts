/**
 * The significant-event catalogue (docs/significant-events.md): every kind of significant event of
 * the ledger with its code, severity, category, who raises it and when, its thresholds (and the
 * configuration variables they are read from), the acknowledgement its severity requires and the
 * regulatory texts that ask for it. Pure data and pure functions: it imports only the types of the
 * event catalogue and the error table, so every layer may read it.
 *
 * ```ts
 * significantEventSpec('WIN.LARGE').severity;   // 'high'
 * requiresSecondPerson('WIN.LARGE');            // true
 * significantEventCodesFor('RoundVoided');      // ['ROUND.VOIDED']
 * ```
 */
export * from './severity';
export * from './regulations';
export * from './spec';
export * from './catalogue';
export * from './codes';
export * from './invariants';
export * from './render';
export * from './detect';
export * from './causes';
export * from './flood';
export * from './configuration';
export * from './settings';
