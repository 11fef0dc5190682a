import { CheckDown, reusedFor } from './health';

describe('reusedFor (a costly readiness check answered again for a while)', () => {
  it('Given calls within the window, Then the check runs once and every call gets its outcome; after the window it runs again', async () => {
    let t = 0;
    let runs = 0;
    const check = reusedFor(
      async () => ({ run: ++runs }),
      1000,
      () => t,
    );
    expect(await check()).toEqual({ run: 1 });
    t = 999;
    expect(await check()).toEqual({ run: 1 });
    t = 2000;
    expect(await check()).toEqual({ run: 2 });
    expect(runs).toBe(2);
  });

  it('Given a check that failed, Then its error is answered again within the window, and the check runs again after it', async () => {
    let t = 0;
    let runs = 0;
    const check = reusedFor(
      async () => {
        runs++;
        throw new CheckDown('stalled', { code: 'DATABASE.SYNC_COMMIT_STALLED' });
      },
      1000,
      () => t,
    );
    await expect(check()).rejects.toThrow('stalled');
    t = 500;
    await expect(check()).rejects.toThrow('stalled');
    expect(runs).toBe(1);
    t = 1500;
    await expect(check()).rejects.toThrow('stalled');
    expect(runs).toBe(2);
  });
});
