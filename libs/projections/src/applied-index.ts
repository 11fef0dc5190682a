import { createHash } from 'node:crypto';

/** What {@link AppliedEventIndex.lookup} knows of an event. */
export type AppliedLookup = 'new' | 'duplicate' | 'check';

const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The events a rebuild's applier committed (`dedupe: 'memory'`, applier.ts), in about 50 bytes an
 * event instead of a `Map` of id and hash strings (≈ 170 bytes an event: 170 MiB at a million):
 *
 * - by global position (dense integers, one event ↔ one position): chunks of 65,536 positions,
 *   each a presence bitmap and the events' SHA-256 hashes as bytes (32 bytes a position),
 *   allocated when a position of the chunk is first added;
 * - by event id: a 64-bit fingerprint of the id in an open-addressing table (16 bytes an event).
 *
 * Exact: {@link lookup} answers `duplicate` only when the position holds the same hash (same hash,
 * same canonical bytes, same event), `new` only when the position is free and no applied id has the
 * fingerprint, and `check` otherwise (the position holds another hash, or the id's fingerprint is
 * known: a reused id, or a fingerprint collision): the caller then reads `applied_events` for those
 * ids, as the `'table'` mode does. A hash that is not 64 hex digits is kept in a small map instead.
 */
export class AppliedEventIndex {
  private readonly chunks = new Map<number, { present: Uint8Array; hashes: Uint8Array }>();
  private readonly odd = new Map<string, string>();
  private ids = new Uint32Array(2 * 1024);
  private used = 0;
  private count = 0;

  /** Events added. */
  get size(): number {
    return this.count;
  }

  /** Bytes held by the typed arrays (for reports). */
  get bytes(): number {
    let n = this.ids.byteLength;
    for (const c of this.chunks.values()) n += c.present.byteLength + c.hashes.byteLength;
    return n;
  }

  /** Whether the event at `position` with `eventId` and `hash` was added (see the class comment). */
  lookup(position: string, eventId: string, hash: string): AppliedLookup {
    const p = Number(position);
    const odd = this.odd.get(position);
    if (odd !== undefined) return odd === hash ? 'duplicate' : 'check';
    if (Number.isSafeInteger(p) && p >= 0) {
      const c = this.chunks.get(Math.floor(p / CHUNK));
      const i = p % CHUNK;
      if (c && c.present[i >> 3] & (1 << (i & 7))) return HEX64.test(hash) && Buffer.from(hash, 'hex').equals(c.hashes.subarray(i * 32, i * 32 + 32)) ? 'duplicate' : 'check';
    }
    return this.hasId(eventId) ? 'check' : 'new';
  }

  /** Records a committed event. */
  add(position: string, eventId: string, hash: string): void {
    const p = Number(position);
    if (!Number.isSafeInteger(p) || p < 0 || !HEX64.test(hash)) this.odd.set(position, hash);
    else {
      const key = Math.floor(p / CHUNK);
      let c = this.chunks.get(key);
      if (!c) this.chunks.set(key, (c = { present: new Uint8Array(CHUNK / 8), hashes: new Uint8Array(CHUNK * 32) }));
      const i = p % CHUNK;
      c.present[i >> 3] |= 1 << (i & 7);
      c.hashes.set(Buffer.from(hash, 'hex'), i * 32);
    }
    this.addId(eventId);
    this.count++;
  }

  private fingerprint(eventId: string): [number, number] {
    const d = createHash('sha1').update(eventId).digest();
    const hi = d.readUInt32LE(0);
    const lo = d.readUInt32LE(4) | 1; // never 0: (0, 0) marks a free slot
    return [hi, lo >>> 0];
  }

  private slot(hi: number, lo: number): number {
    const slots = this.ids.length / 2;
    let s = (hi ^ Math.imul(lo, 0x9e3779b1)) >>> 0;
    for (;;) {
      s &= slots - 1;
      const a = this.ids[2 * s];
      const b = this.ids[2 * s + 1];
      if ((a === 0 && b === 0) || (a === hi && b === lo)) return s;
      s++;
    }
  }

  private hasId(eventId: string): boolean {
    const [hi, lo] = this.fingerprint(eventId);
    const s = this.slot(hi, lo);
    return this.ids[2 * s + 1] !== 0;
  }

  private addId(eventId: string): void {
    if ((this.used + 1) * 2 > this.ids.length / 2) this.grow();
    const [hi, lo] = this.fingerprint(eventId);
    const s = this.slot(hi, lo);
    if (this.ids[2 * s + 1] === 0) {
      this.ids[2 * s] = hi;
      this.ids[2 * s + 1] = lo;
      this.used++;
    }
  }

  private grow(): void {
    const old = this.ids;
    this.ids = new Uint32Array(old.length * 2);
    for (let s = 0; s < old.length / 2; s++) {
      const hi = old[2 * s];
      const lo = old[2 * s + 1];
      if (lo === 0) continue;
      const t = this.slot(hi, lo);
      this.ids[2 * t] = hi;
      this.ids[2 * t + 1] = lo;
    }
  }
}
