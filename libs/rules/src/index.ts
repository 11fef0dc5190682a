/**
 * The rules of live-dealer baccarat (Classic with pairs, Tiger, Fabulous 4), pure TypeScript.
 * No framework, no I/O, no clock, no randomness: the specification is
 * `docs/domain-rules.md` and every function cites its section.
 */
export * from './errors';
export * from './cards';
export * from './shoe';
export * from './tableau';
export * from './money';
export * from './settlement';
export * from './variants';
export * from './paytables';
export * from './evaluate';
export * from './par-sheet';
