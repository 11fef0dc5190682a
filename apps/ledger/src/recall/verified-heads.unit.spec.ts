import type { IncrementalChainVerification, PgEventStore, VerifiedHead } from '@ledger/event-store';
import { VerifiedHeads } from './verified-heads';

/** A store whose verification answers what the spec says, recording where each call started. */
function store(answers: Array<{ ok: boolean; head: VerifiedHead }>) {
  const since: Array<VerifiedHead | null> = [];
  const s = {
    async verifyStreamSince(_id: string, from: VerifiedHead | null): Promise<IncrementalChainVerification> {
      since.push(from);
      const a = answers.shift()!;
      return { ok: a.ok, streamsChecked: 1, eventsChecked: 1, problems: [], verifiedFrom: from?.version ?? 0, head: a.head };
    },
  };
  return { store: s as unknown as PgEventStore, since };
}

describe('VerifiedHeads: recall verifies from the last head a successful check ended on', () => {
  it('remembers the head of a sound chain, starts there next time, and forgets it after a failure', async () => {
    const h1 = { version: 5, hash: 'a'.repeat(64) };
    const h2 = { version: 9, hash: 'b'.repeat(64) };
    const { store: s, since } = store([
      { ok: true, head: h1 },
      { ok: true, head: h2 },
      { ok: false, head: h2 },
      { ok: true, head: h2 },
    ]);
    const heads = new VerifiedHeads();
    await heads.verify(s, 'shoe-1');
    await heads.verify(s, 'shoe-1');
    await heads.verify(s, 'shoe-1'); // fails: the head is forgotten
    await heads.verify(s, 'shoe-1'); // so the whole stream again
    expect(since).toEqual([null, h1, h2, null]);
  });

  it('keeps one head per stream', async () => {
    const { store: s, since } = store([
      { ok: true, head: { version: 1, hash: 'c'.repeat(64) } },
      { ok: true, head: { version: 2, hash: 'd'.repeat(64) } },
    ]);
    const heads = new VerifiedHeads();
    await heads.verify(s, 'shoe-1');
    await heads.verify(s, 'shoe-2');
    expect(since).toEqual([null, null]);
  });
});
