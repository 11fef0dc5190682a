/**
 * A cluster spec killed before its teardown (a CI timeout, Ctrl-C) leaves its members running,
 * detached, on its fixed ports. The next run first stops what an earlier run of the same spec left
 * (`.stack/<prefix>-<pid>/`), so that it never meets a port taken by its own past.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { clusterDown } from '../../scripts/cluster/lifecycle';
import { REPO_ROOT, topology } from '../../scripts/cluster/topology';

/** Stops and deletes every `.stack/<prefix>-*` cluster (on ports from `base`) an earlier run left. */
export async function downLeftovers(prefix: string, base: number): Promise<void> {
  const stack = join(REPO_ROOT, '.stack');
  let names: string[] = [];
  try {
    names = readdirSync(stack).filter((n) => n.startsWith(`${prefix}-`));
  } catch {
    return;
  }
  for (const n of names) {
    await clusterDown(topology(join(stack, n), base), (l) => process.stderr.write(`[leftover ${n}] ${l}\n`)).catch(() => undefined);
    rmSync(join(stack, n), { recursive: true, force: true });
  }
}
