import type { KafkaAdmin } from '@ledger/kafka';
import { ensureTopics, type LedgerTopic } from './topics';

/** A fake admin: the topics it holds, and a createTopics that fails `failures` times with `error` first. */
function fakeAdmin(o: { failures: number; error: Error & { type?: string } }) {
  const topics = new Map<string, number>();
  let calls = 0;
  const admin = {
    listTopics: async () => [...topics.keys()],
    createTopics: async (ts: readonly LedgerTopic[]) => {
      calls++;
      for (const t of ts) topics.set(t.name, t.partitions);
      if (calls <= o.failures) throw o.error;
      return true;
    },
    fetchTopicMetadata: async (names: readonly string[]) => names.map((name) => ({ name, partitions: Array.from({ length: topics.get(name) ?? 0 }, (_, i) => ({ partitionId: i, leader: 1, replicas: [1], isr: [1] })) })),
  };
  return { admin: admin as unknown as KafkaAdmin, calls: () => calls };
}

const TOPIC: LedgerTopic = { name: 'spec.topic', partitions: 3, configs: {} };

describe('ensureTopics (libs/infra/src/kafka/topics.ts)', () => {
  it('Given a broker that has not had a new topic’s metadata yet while the leaders are awaited, Then the creation is retried and succeeds', async () => {
    const unknown = Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
    const f = fakeAdmin({ failures: 2, error: unknown });
    await expect(ensureTopics(f.admin, [TOPIC])).resolves.toEqual({ created: ['spec.topic'], existing: [] });
    expect(f.calls()).toBe(3);
  });

  it('Given an error that is not transient, Then it is thrown at once', async () => {
    const f = fakeAdmin({ failures: 1, error: Object.assign(new Error('Topic authorization failed'), { type: 'TOPIC_AUTHORIZATION_FAILED' }) });
    await expect(ensureTopics(f.admin, [TOPIC])).rejects.toThrow('Topic authorization failed');
    expect(f.calls()).toBe(1);
  });
});
