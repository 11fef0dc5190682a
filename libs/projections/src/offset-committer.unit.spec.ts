import { OffsetCommitter } from './offset-committer';
import { SILENT_LOGGER } from './logger';

describe('OffsetCommitter (Kafka offsets without a round trip per batch)', () => {
  it('returns at once, keeps one commit in flight per partition, and sends only the latest offset asked for meanwhile', async () => {
    const sent: string[] = [];
    const waiting: (() => void)[] = [];
    const commit = (offsets: { partition: number; offset: string }[]) => {
      sent.push(offsets.map((o) => `${o.partition}@${o.offset}`).join());
      return new Promise<void>((resolve) => waiting.push(resolve));
    };
    const c = new OffsetCommitter(SILENT_LOGGER);
    c.commit(commit, 't', 0, '10');
    c.commit(commit, 't', 0, '20');
    c.commit(commit, 't', 0, '30');
    c.commit(commit, 't', 1, '5');
    expect(sent).toEqual(['0@10', '1@5']); // nothing awaited: the batch went on
    waiting.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual(['0@10', '1@5', '0@30']); // 20 was superseded
  });

  it('forgets a failed commit (the next batch commits a later offset)', async () => {
    let calls = 0;
    const c = new OffsetCommitter(SILENT_LOGGER);
    const failing = async () => {
      calls++;
      throw new Error('coordinator moved');
    };
    c.commit(failing, 't', 0, '1');
    await new Promise((r) => setImmediate(r));
    c.commit(failing, 't', 0, '2');
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(2);
  });
});
