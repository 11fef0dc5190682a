import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { metricValue } from '@ledger/metrics';
import { ApiError } from './api-error';
import { CUT_LOG_LINES_PER_MINUTE, HeavyReadLimiter, type HeavyReadRequest } from './heavy-read';
import { ResponseWatch, type AnswerClosed } from './heavy-read-watch';

/** A response as the watch sees it: the test moves its counters and emits its close. */
class FakeResponse extends EventEmitter {
  closed = false;
  destroyed = false;
  writableFinished = false;
  writableLength = 0;
  socket: { bytesWritten: number; writableLength: number } | null = { bytesWritten: 0, writableLength: 0 };
  destroyCalls = 0;

  /** `n` more bytes written, not yet accepted by the kernel. */
  queue(n: number): void {
    this.writableLength += n;
    this.socket!.bytesWritten += n;
    this.socket!.writableLength += n;
  }
  /** `n` of the waiting bytes accepted by the kernel. */
  accept(n: number): void {
    this.writableLength -= n;
    this.socket!.writableLength -= n;
  }
  finish(): void {
    this.writableFinished = true;
    this.close();
  }
  close(): void {
    this.closed = true;
    this.emit('close');
  }
  destroy(): void {
    this.destroyCalls += 1;
    this.destroyed = true;
    setImmediate(() => this.close());
  }
}

const config = (values: Partial<LedgerApiEnv>) => ({ get: (k: keyof LedgerApiEnv) => values[k] }) as unknown as ConfigService<LedgerApiEnv, true>;
const limiter = () => new HeavyReadLimiter(config({ HEAVY_READS_PER_CALLER: 1, HEAVY_READS_MAX_CONCURRENT: 2, HEAVY_READ_IDLE_TIMEOUT_MS: 60_000 }));
const request = (id: string, res: FakeResponse | undefined): HeavyReadRequest => ({ principal: { id, role: 'auditor' } as never, res, method: 'GET', route: { path: '/exports/:kind' } });
const busy = (p: Promise<unknown>) =>
  p.then(
    () => 'ran',
    (e: unknown) => (e instanceof ApiError ? e.code : String(e)),
  );

/** A read the test settles. */
function pending<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
}

describe('HeavyReadLimiter: a slot is given back exactly once, when the read has settled and its answer has closed', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    warn.mockRestore();
    jest.restoreAllMocks();
  });
  it('a finished answer: the slot comes back at the close, not before', async () => {
    const l = limiter();
    const res = new FakeResponse();
    expect(await l.run(request('a', res), async () => 'value')).toBe('value');
    expect(await busy(l.run(request('a', new FakeResponse()), async () => 'x'))).toBe('RATE.HEAVY_READ_BUSY');
    res.finish();
    expect(await busy(l.run(request('a', undefined), async () => 'x'))).toBe('ran');
  });

  it('a client gone while the read runs: the slot comes back when the read settles, once, even if the close is seen twice', async () => {
    const l = limiter();
    const res = new FakeResponse();
    const abortedBefore = await metricValue('ledger_heavy_reads_cut_total', { reason: 'aborted' });
    const read = pending<string>();
    const running = l.run(request('a', res), () => read.promise);
    res.close();
    res.emit('close');
    expect(await busy(l.run(request('a', undefined), async () => 'x'))).toBe('RATE.HEAVY_READ_BUSY');
    read.resolve('late');
    expect(await running).toBe('late');
    expect(await busy(l.run(request('a', undefined), async () => 'x'))).toBe('ran');
    expect((await metricValue('ledger_heavy_reads_cut_total', { reason: 'aborted' })) - abortedBefore).toBe(1);
    // two slots over all: both free (a double release would have let a third in, or driven the count below zero)
    const hold = [pending<void>(), pending<void>()];
    const r1 = new FakeResponse();
    const r2 = new FakeResponse();
    const held = [l.run(request('b', r1), () => hold[0].promise), l.run(request('c', r2), () => hold[1].promise)];
    expect(await busy(l.run(request('d', undefined), async () => 'x'))).toBe('RATE.HEAVY_READ_BUSY');
    hold.forEach((h) => h.resolve());
    await Promise.all(held);
    r1.finish();
    r2.finish();
    expect(await busy(l.run(request('d', undefined), async () => 'x'))).toBe('ran');
  });

  it('a read that throws (a failure, a statement timeout): its error goes on, the slot comes back at the close of the error answer', async () => {
    const l = limiter();
    const res = new FakeResponse();
    await expect(l.run(request('a', res), async () => Promise.reject(new ApiError('DATABASE.TIMEOUT', 'statement timeout')))).rejects.toMatchObject({ code: 'DATABASE.TIMEOUT' });
    expect(await busy(l.run(request('a', undefined), async () => 'x'))).toBe('RATE.HEAVY_READ_BUSY');
    res.finish();
    expect(await busy(l.run(request('a', undefined), async () => 'x'))).toBe('ran');
  });

  it(`cut answers are logged, at most ${CUT_LOG_LINES_PER_MINUTE} lines a minute; the next minute's first line counts the rest`, async () => {
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const l = limiter();
    const cutOne = async (id: string) => {
      const res = new FakeResponse();
      await l.run(request(id, res), async () => 'x');
      res.close();
    };
    for (let i = 0; i < CUT_LOG_LINES_PER_MINUTE + 5; i++) await cutOne(`caller-${i}`);
    expect(warn).toHaveBeenCalledTimes(CUT_LOG_LINES_PER_MINUTE);
    expect(warn.mock.calls[0][0]).toMatchObject({ reason: 'aborted', route: 'GET /exports/:kind', callerRole: 'auditor', callerId: 'caller-0' });
    now += 60_000;
    await cutOne('next-minute');
    expect(warn).toHaveBeenCalledTimes(CUT_LOG_LINES_PER_MINUTE + 1);
    expect(warn.mock.calls[CUT_LOG_LINES_PER_MINUTE][0]).toMatchObject({ callerId: 'next-minute', suppressed: 5 });
  });

  it('an answer closed before the slot was taken: the slot comes back when the read settles', async () => {
    const l = limiter();
    const res = new FakeResponse();
    res.closed = true;
    await l.run(request('a', res), async () => 'x');
    expect(await busy(l.run(request('a', undefined), async () => 'x'))).toBe('ran');
  });
});

describe('ResponseWatch: a reader that stopped reading is cut after the idle timeout', () => {
  function watched(res: FakeResponse, idleMs = 1000) {
    let now = 0;
    const closes: AnswerClosed[] = [];
    const watch = new ResponseWatch(res, { idleMs, onClose: (c) => closes.push(c), now: () => now, poll: false });
    return { watch, closes, advance: (ms: number) => (now += ms) };
  }

  it('bytes waiting and none accepted for the idle timeout: destroyed, reported stalled once', async () => {
    const res = new FakeResponse();
    const { watch, closes, advance } = watched(res);
    res.queue(5000);
    res.accept(1000);
    expect(watch.check()).toBe(false);
    advance(999);
    expect(watch.check()).toBe(false);
    advance(1);
    expect(watch.check()).toBe(true);
    expect(watch.check()).toBe(false);
    expect(res.destroyCalls).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(closes).toEqual([{ outcome: 'stalled', bytesAccepted: 1000, heldMs: 1000 }]);
    expect(watch.isClosed).toBe(true);
  });

  it('a slow reader that keeps accepting bytes, or an answer with nothing waiting, is never cut', () => {
    const res = new FakeResponse();
    const { watch, advance } = watched(res);
    for (let i = 0; i < 10; i++) {
      advance(900);
      expect(watch.check()).toBe(false);
    }
    res.queue(10_000);
    for (let i = 0; i < 9; i++) {
      advance(900);
      res.accept(1000);
      expect(watch.check()).toBe(false);
    }
    expect(res.destroyCalls).toBe(0);
  });

  it('a finished answer is reported finished; one closed before its end aborted; one closed before the watch aborted at once', () => {
    const finished = new FakeResponse();
    const a = watched(finished);
    finished.finish();
    const aborted = new FakeResponse();
    const b = watched(aborted);
    aborted.close();
    const early = new FakeResponse();
    early.closed = true;
    const c = watched(early);
    expect([a.closes[0]?.outcome, b.closes[0]?.outcome, c.closes[0]?.outcome]).toEqual(['finished', 'aborted', 'aborted']);
    expect(c.watch.check()).toBe(false);
  });
});
