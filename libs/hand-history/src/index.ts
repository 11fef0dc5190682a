/** The third-party hand history (shared data, docs/hand-history.md): reading and parsing its lines. */
export * from './hand-history';
