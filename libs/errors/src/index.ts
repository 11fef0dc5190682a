/**
 * The one error table of the product (docs/architecture.md §4): every error code with its HTTP
 * status, its kind and its message template. Pure data and pure functions: it imports nothing
 * but itself, so every layer (the domain included) may read it.
 *
 * ```ts
 * errorSpec('SHOE.CLOSED');                      // { kind: 'wrong-state', status: 422, message: 'shoe {shoeId} is closed: …', raisedBy: ['shoe'] }
 * formatErrorMessage('SHOE.CLOSED', { shoeId }); // 'shoe S-1 is closed: …'
 * ```
 */
export * from './kinds';
export * from './table';
export * from './codes';
export * from './render';
