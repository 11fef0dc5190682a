/**
 * The shoe-and-round state machine (domain-rules.md §2–§5): pure `decide(state, command, ctx)`
 * and `evolve(state, event)` over one shoe's event stream. No framework, no I/O, no clock, no
 * randomness: event ids come from `ctx.newId()`.
 *
 * Typical use (a command handler):
 * ```ts
 * const state = fold(storedEvents);                      // or events.reduce(evolve, initialState())
 * const events = decide(state, command, { newId: uuid }); // throws DomainError on refusal
 * // append `events` with expected version = state.version
 * ```
 */
export * from './commands';
export * from './errors';
export * from './accounting';
export * from './keyed-log';
export * from './state';
export * from './evolve';
export * from './decide';
