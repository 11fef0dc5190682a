/**
 * Polls `probe` once a second until it returns a truthy value (the tests' waits: no timer under a
 * second, a deadline instead of a speed assertion).
 * @param what named in the error when the deadline passes
 * @param timeoutMs the deadline, in ms. @default 90000
 * @returns the first truthy value
 * @throws Error `timed out waiting for <what>`
 */
export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
