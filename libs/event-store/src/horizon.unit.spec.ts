import type { Client } from 'pg';
import { CommitHorizon } from './horizon';

/**
 * A stand-in session: answers the horizon's two statements (the sequence's last value; the writers'
 * transaction ids) and its wait (how many of them are still running) from fields a test sets.
 */
class FakeSession {
  last: string | null = null;
  running: string[] = [];

  asClient(): Client {
    return { query: async (sql: string, params?: unknown[]) => this.answer(sql, params) } as unknown as Client;
  }

  private answer(sql: string, params?: unknown[]): { rows: unknown[] } {
    if (sql.includes('pg_sequence_last_value')) return { rows: [{ last: this.last }] };
    if (sql.includes('pg_locks')) return { rows: [{ xids: [...this.running] }] };
    if (sql.includes('pg_visible_in_snapshot')) {
      const asked = (params?.[0] as string[]) ?? [];
      return { rows: [{ pending: asked.filter((x) => this.running.includes(x)).length }] };
    }
    throw new Error(`unexpected statement: ${sql}`);
  }
}

describe('CommitHorizon (docs/guarantees.md §5)', () => {
  it('is the sequence’s last value once no writer of it is running', async () => {
    const s = new FakeSession();
    s.last = '40';
    const h = new CommitHorizon();
    expect(await h.advance(s.asClient(), 0)).toBe(40n);
  });

  it('stays below positions an append still running holds, and moves once it ended', async () => {
    const s = new FakeSession();
    const client = s.asClient();
    const h = new CommitHorizon();
    s.last = '10';
    expect(await h.advance(client, 0)).toBe(10n);
    s.last = '15';
    s.running = ['901'];
    expect(await h.advance(client, 0)).toBe(10n);
    s.running = [];
    expect(await h.advance(client, 0)).toBe(15n);
  });

  it('starts again on a new session: after a crash the restarted sequence may hand out positions the old horizon had passed', async () => {
    const before = new FakeSession();
    const h = new CommitHorizon();
    before.last = '500';
    expect(await h.advance(before.asClient(), 0)).toBe(500n);
    // the server crashed; values 481..500 went to appends that never committed and were not made durable
    const after = new FakeSession();
    const reconnected = after.asClient();
    after.last = '480';
    expect(await h.advance(reconnected, 0)).toBe(480n);
    // an append after the restart takes 481 and is still running: the horizon must not pass it
    after.last = '481';
    after.running = ['7'];
    expect(await h.advance(reconnected, 0)).toBe(480n);
  });

  it('reset forgets the horizon on the same session too', async () => {
    const s = new FakeSession();
    const client = s.asClient();
    const h = new CommitHorizon();
    s.last = '30';
    expect(await h.advance(client, 0)).toBe(30n);
    h.reset();
    s.last = '20';
    expect(await h.advance(client, 0)).toBe(20n);
  });
});
