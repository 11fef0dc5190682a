import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { HandRecord, parseHandLine, PUBLISHED_MILLION_HANDS, PUBLISHED_MILLION_TOTALS, replayHand, replayHandHistoryFile, ReplaySummary, ReplayTally, shoeSequenceOf } from './hand-history';

/**
 * Data tier: the one million third-party hands (outside the repository; format in `hand-history.ts`),
 * streamed out of the archive with `tar -xJOf` and dealt through the rules engine.
 */
const ARCHIVE = process.env.HAND_HISTORY_ARCHIVE ?? resolve(__dirname, '../../../../shared/data/hand-histories/one-million-hands.txt.tar.xz');

function hand(text: string, line = 2): HandRecord {
  const p = parseHandLine(text, line);
  if (p.kind !== 'hand') throw new Error(`not a hand: ${text}`);
  return p.hand;
}

describe('third-party hand history replay', () => {
  describe('the comparison can fail (so that agreement means something)', () => {
    it("Given the README's example K,6 - 3,2,3 - BANKER, When rebuilt, Then the shoe is K 3 6 2 3 then clubs not in the hand, and it agrees", () => {
      const h = hand('K,6 - 3,2,3 - BANKER');
      const seq = shoeSequenceOf(h);
      expect(seq.shoe.map((c) => c.code)).toEqual(['KS', '3H', '6D', '2S', '3H', '9C', '8C', '7C']);
      expect(seq.handCards).toBe(5);
      expect(replayHand(h)).toMatchObject({ agree: true, reasons: [] });
    });

    it.each([
      ['a Banker that should have drawn', 'K,6 - 3,2 - BANKER', ['BANKER_CARDS', 'WINNER']],
      ['a wrong winner', '9,Q - K,5 - BANKER', ['WINNER']],
      ['a Player third card the tableau forbids', '6,A,2 - 4,5 - BANKER', ['PLAYER_CARDS']],
      ['a Player who should have drawn', '4,Q - K,A,5 - BANKER', ['PLAYER_CARDS', 'BANKER_CARDS', 'WINNER']],
      ['a Banker 3 who should have stood on a Player third card 8 (same winner)', '2,K,8 - 3,K,5 - BANKER', ['BANKER_CARDS']],
      ['a ten written "10" and a wrong winner', '10,9 - K,5 - TIE', ['WINNER']],
    ])('Given %s (%s), When replayed, Then it disagrees with %j', (_name, text, reasons) => {
      expect(replayHand(hand(text)).reasons).toEqual(reasons);
    });

    it('Given header, blank, malformed and hand lines, When tallied, Then each is counted in its place with line numbers', () => {
      const tally = new ReplayTally(5);
      ['PHand - BHand - Outcome', 'K,6 - 3,2,3 - BANKER', '', 'K,6 - 3,2 - BANKER', 'A,B - 2,3 - TIE', '9,Q - K,5 - PLAYER\r'].forEach((t, i) => tally.addLine(t, i + 1));
      const s = tally.summary();
      expect(s).toMatchObject({ hands: 3, agree: 2, disagree: 1, malformed: 1 });
      expect(s.engineTotals).toEqual({ BANKER: 1, PLAYER: 2, TIE: 0 });
      expect(s.fileTotals).toEqual({ BANKER: 2, PLAYER: 1, TIE: 0 });
      expect(s.firstDisagreements.map((d) => [d.line, d.reasons])).toEqual([
        [4, ['BANKER_CARDS', 'WINNER']],
        [5, ['MALFORMED']],
      ]);
    });
  });

  describe('the published file', () => {
    let summary: ReplaySummary;
    let elapsedMs = 0;

    beforeAll(async () => {
      if (!existsSync(ARCHIVE)) throw new Error(`archive not found: ${ARCHIVE}`);
      const t0 = performance.now();
      summary = await replayHandHistoryFile(ARCHIVE, { maxReported: 5 });
      elapsedMs = performance.now() - t0;
    }, 300_000);

    it('Given the archive streamed via tar -xJOf, When every hand is replayed, Then all 1,000,000 hands agree (cards to each side and winner)', () => {
      expect(summary.firstDisagreements).toEqual([]);
      expect(summary.malformed).toBe(0);
      expect(summary.hands).toBe(PUBLISHED_MILLION_HANDS);
      expect(summary.agree).toBe(PUBLISHED_MILLION_HANDS);
      expect(summary.disagree).toBe(0);
      expect(elapsedMs).toBeGreaterThan(0);
    });

    it('Given the replay, When outcomes are counted, Then the totals equal the published BANKER 459,157 / PLAYER 444,936 / TIE 95,907', () => {
      expect(summary.engineTotals).toEqual(PUBLISHED_MILLION_TOTALS);
      expect(summary.fileTotals).toEqual(PUBLISHED_MILLION_TOTALS);
      expect(PUBLISHED_MILLION_TOTALS).toEqual({ BANKER: 459_157, PLAYER: 444_936, TIE: 95_907 });
    });
  });
});
