/**
 * The shoe-and-round state machine (docs/domain-rules.md §2–§6): pure `decide(state, command, ctx)`
 * and `evolve(state, event)` over one shoe's event stream. No framework, no I/O, no clock, no
 * randomness: event ids come from `ctx.newId()`. `decide` is split by area under `decide/`
 * (shoe life, commencement, betting, dealing, incidents, management; docs/architecture.md §3),
 * each with its Given/When/Then spec beside it. Section signs (§) in this library without a
 * document name are those of docs/domain-rules.md.
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
export * from './state-size';
export * from './state-codec';
export * from './evolve';
export * from './decide';
export * from './decisions/decisions';
