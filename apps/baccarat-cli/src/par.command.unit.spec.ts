import { Command, CommanderError } from 'commander';
import { registerParCommand } from './par.command';

/** Runs `baccarat par …` on a fresh program with exitOverride, capturing stdout and stderr. */
async function run(args: string[]): Promise<{ out: string; err: string; exitCode: number }> {
  let out = '';
  let err = '';
  const program = new Command('baccarat').exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
  registerParCommand(program);
  try {
    await program.parseAsync(['node', 'baccarat', 'par', ...args]);
    return { out, err, exitCode: 0 };
  } catch (e) {
    if (e instanceof CommanderError) return { out, err, exitCode: e.exitCode };
    throw e;
  }
}

describe('baccarat par', () => {
  it('--json: the classic 8-deck sheet, houseEdge rounded to 6 decimals', async () => {
    const { out, err, exitCode } = await run(['--variant', 'classic', '--decks', '8', '--json']);
    expect(exitCode).toBe(0);
    expect(err).toBe('');
    const doc = JSON.parse(out);
    expect(doc).toMatchObject({ variant: 'classic', decks: 8, paytable: 'classic-standard@1', combinations: '4998398275503360' });
    expect(doc.outcomes.bankerWins).toBeCloseTo(0.458597, 6);
    expect(doc.outcomes.playerWins).toBeCloseTo(0.446247, 6);
    expect(doc.outcomes.tie).toBeCloseTo(0.095156, 6);
    const edges = Object.fromEntries(doc.bets.map((b: { bet: string; houseEdge: number }) => [b.bet, b.houseEdge]));
    expect(edges).toEqual({
      PLAYER: 0.012351,
      BANKER: 0.010579,
      TIE: 0.143596,
      PLAYER_PAIR: 0.103614,
      BANKER_PAIR: 0.103614,
      EITHER_PAIR: 0.137099,
    });
    expect(doc.bets[1].rows.map((r: { row: string; payoff: string }) => [r.row, r.payoff])).toEqual([
      ['WIN', '0.95:1'],
      ['TIE', 'push'],
      ['LOSE', 'lose'],
    ]);
  });

  it('--paytable picks another paytable of the variant', async () => {
    const { out, exitCode } = await run(['--variant', 'classic', '--decks', '6', '--paytable', 'classic-no-commission@1', '--json']);
    expect(exitCode).toBe(0);
    const doc = JSON.parse(out);
    expect(doc.paytable).toBe('classic-no-commission@1');
    expect(doc.bets.find((b: { bet: string }) => b.bet === 'BANKER').houseEdge).toBe(0.014548);
  });

  it('the table: every bet with its house edge in % and each row’s probability', async () => {
    const { out, exitCode } = await run(['--variant', 'tiger', '--decks', '8']);
    expect(exitCode).toBe(0);
    expect(out).toContain('PAR sheet: tiger, 8 decks, paytable tiger-standard@1');
    expect(out).toContain('outcomes: Banker 0.458597   Player 0.446247   Tie 0.095156');
    expect(out).toMatch(/BIG_TIGER\s+15\.2533%\s+SIX_ON_THREE_CARDS\s+50:1\s+0\.01661700/);
    for (const b of ['PLAYER', 'BANKER', 'TIE', 'TIGER_TIE', 'TIGER_PAIR', 'TIGER', 'BIG_TIGER', 'SMALL_TIGER']) {
      expect(out).toMatch(new RegExp(`^${b}\\s+\\d+\\.\\d{4}%`, 'm'));
    }
  });

  it.each([
    [['--variant', 'baccarat', '--decks', '8'], /unknown variant "baccarat"; expected one of classic, tiger, fabulous4/],
    [['--decks', '8'], /missing --variant/],
    [['--variant', 'classic'], /missing --decks/],
    [['--variant', 'classic', '--decks', '0'], /--decks must be an integer 1\.\.16, got "0"/],
    [['--variant', 'classic', '--decks', '17'], /--decks must be an integer 1\.\.16, got "17"/],
    [['--variant', 'classic', '--decks', '7.5'], /--decks must be an integer 1\.\.16, got "7\.5"/],
    [['--variant', 'classic', '--decks', 'eight'], /--decks must be an integer 1\.\.16, got "eight"/],
    [['--variant', 'classic', '--decks', '8', '--paytable', 'tiger-standard@1'], /paytable tiger-standard@1 is for variant tiger, not classic/],
    [['--variant', 'classic', '--decks', '8', '--paytable', 'nope@1'], /unknown paytable "nope@1"/],
  ])('%j → exit 2 with a clear message', async (args, message) => {
    const { out, err, exitCode } = await run(args);
    expect(exitCode).toBe(2);
    expect(err).toMatch(message);
    expect(out).toBe('');
  });
});
