import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The append-only anchor file (docs/anchors.md "The anchor file"): one signed anchor per line
 * (canonical JSON + `\n`), appended and fsynced, never rewritten. Several ledgers may share one file
 * (each line names its `ledgerId`); each line is written by one `write` call on an `O_APPEND`
 * descriptor, so appends of different processes do not interleave.
 */

/** One line read back. */
export interface AnchorFileLine {
  /** 1-based line number. */
  readonly lineNo: number;
  readonly text: string;
}

/**
 * Appends `lines` (without their newline) to `file`, creating it and its folder if missing, and
 * fsyncs it (and the folder when the file is new) before returning. A file whose last line lacks its
 * newline (a write cut by a crash) first gets one, so the cut line stays apart from the next.
 * @throws the I/O error (nothing is then known to be durable)
 */
export function appendAnchorLines(file: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  const isNew = !existsSync(file);
  if (isNew) mkdirSync(dirname(file), { recursive: true });
  const fd = openSync(file, 'a+', 0o644);
  try {
    let prefix = '';
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    writeSync(fd, prefix + lines.map((l) => `${l}\n`).join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (isNew) fsyncDir(dirname(file));
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some file systems refuse fsync on a directory; the file itself is synced
  }
}

/**
 * Every non-empty line of `file`, in file order, streamed (the file may be large).
 * @returns [] when the file does not exist
 */
export async function readAnchorLines(file: string): Promise<AnchorFileLine[]> {
  if (!existsSync(file)) return [];
  const out: AnchorFileLine[] = [];
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const text of rl) {
    lineNo++;
    if (text.trim().length > 0) out.push({ lineNo, text });
  }
  return out;
}
