/**
 * Fairness statistics against the exact PAR sheet (docs/fairness.md): per game the categories,
 * their exact expected probabilities from the PAR engine (`@ledger/rules`), goodness-of-fit tests
 * and the monitor's decision rule with its stated false-alarm rate. Pure: no I/O, no clock.
 */
export * from './categories';
export * from './expected';
export * from './counts';
export * from './goodness-of-fit';
export * from './monitor';
export * from './report';
