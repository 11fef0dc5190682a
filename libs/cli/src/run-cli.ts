import { Command, CommanderError } from 'commander';

/**
 * An error the person running the tool can fix (a bad setting, a missing folder): {@link runCli}
 * writes it as the one line `<name>: <message>`, without a stack trace, and exits with 2 (a usage
 * error), so the message must say what was wrong and quote what was given.
 */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

/**
 * Runs a command-line program built with `commander` (`exitOverride()` set, so usage errors
 * throw `CommanderError` instead of exiting), with the exit codes every tool of the house uses:
 * 0 ok (and `--help`/`--version`); 2 a usage error (unknown command or option, missing or invalid
 * option value: commander has already written the message; or a {@link CliUsageError}, written as
 * the one line `<name>: <message>`); 1 anything else thrown, written to stderr as
 * `<name>: <stack or message>`. Sets `process.exitCode` and never calls `process.exit`,
 * so pending output is flushed.
 * @param program the program; its `name()` prefixes error messages
 * @param argv the full `process.argv`-style vector (`node`, script, args…)
 */
export async function runCli(program: Command, argv: readonly string[] = process.argv): Promise<void> {
  try {
    await program.parseAsync([...argv]);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    if (e instanceof CliUsageError) {
      process.stderr.write(`${program.name()}: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`${program.name()}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  }
}
