/** One refused variable: its name and what is wrong, in words an operator can act on. */
export interface ConfigProblem {
  /** The environment variable, e.g. `RELAY_POLL_INTERVAL_MS`. */
  readonly variable: string;
  /** What it should be, and what it was (secrets are never echoed), e.g. `expected an integer 10..60000 (ms), got "abc"`. */
  readonly message: string;
}

/**
 * A process refuses its configuration at start (docs/architecture.md §5): thrown with every bad or
 * missing variable at once, each named with the form it expects. The mains print `message` and exit 1.
 * `code` is `CONFIG.INVALID`.
 */
export class ConfigError extends Error {
  readonly code = 'CONFIG.INVALID';

  /**
   * @param problems one entry per refused variable (at least one)
   * @param schema the name of the configuration refused, e.g. `LedgerApiEnv`
   */
  constructor(
    readonly problems: readonly ConfigProblem[],
    schema?: string,
  ) {
    super(`invalid configuration${schema ? ` (${schema})` : ''}:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
