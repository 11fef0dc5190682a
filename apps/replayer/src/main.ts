import { runCli } from '@ledger/cli';
import { Command } from 'commander';
import { registerConvertHandsCommand } from './convert-hands.command';
import { registerReplayCommand } from './replay.command';

/**
 * The `replayer` command-line tool: `npm run -s replayer -- <subcommand>` (run by tsx).
 *
 * - `replay --file <log.jsonl> [--api URL] [--out settlements.jsonl | --no-settlements]
 *   [--concurrency N] [--skip-bad] [--check expected.jsonl]`: sends a table log
 *   (`libs/table-log/TABLE_LOG_FORMAT.md`) through the ledger HTTP API, idempotently.
 * - `convert-hands --file <archive or text> --out <log.jsonl> [--hands N] [--tables ids] [--seed S]`:
 *   turns the third-party hand history into a table log and an expected file.
 *
 * Exit codes: 0 ok; 1 refusals, disagreements, failed steps or an unreachable API; 2 usage errors
 * and a table log with bad lines (without `--skip-bad`).
 */

/** Builds the program with every subcommand; usage errors throw `CommanderError`. */
export function buildProgram(): Command {
  const program = new Command('replayer').description('baccarat round ledger: replay table logs through the HTTP API; convert hand histories to table logs').exitOverride().showHelpAfterError();
  registerReplayCommand(program);
  registerConvertHandsCommand(program);
  return program;
}

void runCli(buildProgram());
