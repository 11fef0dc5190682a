import { ApiError } from '../kernel/api-error';
import { ByteBudget } from './batch-admission';

/** Settles pending promise callbacks. */
const flush = () => new Promise((r) => setImmediate(r));

describe('ByteBudget (the bets batches in flight, docs/architecture.md §10)', () => {
  it('grants at once what fits, and holds the sum', async () => {
    const b = new ByteBudget(100);
    const r1 = await b.acquire({ bytes: 40, timeoutMs: 1000 });
    await b.acquire({ bytes: 60, timeoutMs: 1000 });
    expect(b.inFlight).toBe(100);
    r1();
    r1(); // once, however often
    expect(b.inFlight).toBe(60);
  });

  it('runs a request larger than the whole budget when nothing else is held, alone', async () => {
    const b = new ByteBudget(100);
    const big = await b.acquire({ bytes: 500, timeoutMs: 1000 });
    let small = false;
    const p = b.acquire({ bytes: 1, timeoutMs: 1000 }).then((r) => {
      small = true;
      return r;
    });
    await flush();
    expect(small).toBe(false);
    big();
    (await p)();
    expect(small).toBe(true);
    expect(b.inFlight).toBe(0);
  });

  it('serves the line first come, first served: a small request never overtakes a waiting large one', async () => {
    const b = new ByteBudget(100);
    const first = await b.acquire({ bytes: 70, timeoutMs: 1000 });
    const order: string[] = [];
    const large = b.acquire({ bytes: 80, timeoutMs: 1000 }).then((r) => (order.push('large'), r));
    const small = b.acquire({ bytes: 10, timeoutMs: 1000 }).then((r) => (order.push('small'), r));
    await flush();
    // the small one would fit (70 + 10 ≤ 100) but waits behind the large one
    expect(order).toEqual([]);
    expect(b.waiting).toBe(2);
    first();
    await flush();
    expect(order).toEqual(['large', 'small']);
    (await large)();
    (await small)();
    expect(b.inFlight).toBe(0);
  });

  it('refuses after the wait with RATE.BETS_BATCH_BUSY (its limit, what is held, retry after 1 s), holding nothing for it', async () => {
    jest.useFakeTimers();
    try {
      const b = new ByteBudget(100);
      await b.acquire({ bytes: 100, timeoutMs: 1000 });
      const waiting = b.acquire({ bytes: 50, timeoutMs: 250 });
      const caught = waiting.catch((e: unknown) => e);
      jest.advanceTimersByTime(300);
      const err = await caught;
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 'RATE.BETS_BATCH_BUSY', details: { limitBytes: 100, inFlightBytes: 100, retryAfterSeconds: 1 } });
      expect(b.waiting).toBe(0);
      expect(b.inFlight).toBe(100);
    } finally {
      jest.useRealTimers();
    }
  });

  it('lets a request whose client went away leave the line, and serves the one behind it', async () => {
    const b = new ByteBudget(100);
    const held = await b.acquire({ bytes: 60, timeoutMs: 1000 });
    let abandon: () => void = () => undefined;
    const gone = b.acquire({ bytes: 80, timeoutMs: 1000, cancel: (a) => (abandon = a) }).catch((e: Error) => e.message);
    const next = b.acquire({ bytes: 30, timeoutMs: 1000 });
    abandon();
    await expect(gone).resolves.toBe('cancelled');
    // 60 + 30 fit once the 80 left the line ahead of it
    const r = await next;
    expect(b.inFlight).toBe(90);
    r();
    held();
    expect(b.inFlight).toBe(0);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new ByteBudget(0)).toThrow(/positive integer/);
    expect(() => new ByteBudget(1.5)).toThrow(/positive integer/);
  });
});
