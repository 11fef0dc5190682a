/** The third-party hand history (shared data; the converter's rules in apps/replayer/README.md): reading and parsing its lines. */
export * from './hand-history';
