import { Command } from 'commander';
import { CliUsageError, runCli } from './run-cli';

/** A program with one command that succeeds, and one that throws. */
function program(): Command {
  const p = new Command('tool').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  p.command('ok').action(() => undefined);
  p.command('boom').action(() => {
    throw new Error('it broke');
  });
  p.command('misused').action(() => {
    throw new CliUsageError('SETTING must be a number, got "abc"');
  });
  return p;
}

describe('runCli (the exit codes of every command-line tool)', () => {
  let stderr: jest.SpyInstance;
  beforeEach(() => {
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    stderr.mockRestore();
    process.exitCode = undefined;
  });

  it.each([
    ['a command that succeeds', ['ok'], 0],
    ['--help', ['--help'], 0],
    ['an unknown option', ['ok', '--bogus'], 2],
    ['an unknown command', ['nope'], 2],
    ['a command that throws', ['boom'], 1],
    ['a command that refuses a setting (CliUsageError)', ['misused'], 2],
  ])('Given %s, Then the exit code is %s', async (_what, args, code) => {
    await runCli(program(), ['node', 'tool', ...(args as string[])]);
    expect(process.exitCode ?? 0).toBe(code);
  });

  it('Given a command that throws, Then stderr names the tool and the error', async () => {
    await runCli(program(), ['node', 'tool', 'boom']);
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(/^tool: Error: it broke/);
  });

  it('Given a CliUsageError, Then stderr is its one line, without a stack trace', async () => {
    await runCli(program(), ['node', 'tool', 'misused']);
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toBe('tool: SETTING must be a number, got "abc"\n');
  });
});
