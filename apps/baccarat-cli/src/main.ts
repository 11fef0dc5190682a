import { runCli } from '@ledger/cli';
import { Command } from 'commander';
import { registerEvaluateCommand } from './evaluate.command';
import { registerParCommand } from './par.command';
import { registerReplayHandsCommand } from './replay-hands.command';

/**
 * The `baccarat` command-line tool: `npm run -s baccarat -- <subcommand>`.
 *
 * Subcommands: `evaluate` (deal rounds from JSON lines on stdin), `replay-hands` (replay the
 * third-party hand history), `par` (par sheet). Usage errors (unknown command or option, missing
 * or invalid option value) exit 2 with a message on stderr; `--help` exits 0.
 */

/** Builds the program with every subcommand registered; usage errors throw `CommanderError`. */
export function buildProgram(): Command {
  const program = new Command('baccarat').description('baccarat round ledger: rules engine tools').exitOverride().showHelpAfterError();
  registerEvaluateCommand(program);
  registerReplayHandsCommand(program);
  registerParCommand(program);
  return program;
}

void runCli(buildProgram());
