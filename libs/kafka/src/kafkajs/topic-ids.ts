import { connect, type Socket } from 'node:net';

/**
 * Topic ids for the Kafka port's admin (docs/architecture.md §6), which kafkajs 2.x cannot fetch: its
 * Metadata requests stop at version 6 and topic ids came with version 10 (KIP-516). This sends ONE
 * kind of request itself, Metadata v12 (the flexible encoding: compact strings and arrays, tagged
 * fields), over its own TCP connection to a bootstrap broker, and reads only the topic names, error
 * codes and ids of the answer. Nothing else of the Kafka protocol is spoken here.
 *
 * A topic id is what tells a re-created topic from the old one of the same name (docs/guarantees.md
 * §6: the projector stores it with its checkpoint). It is written as Kafka writes it (`Uuid.toString`,
 * e.g. in `kafka-topics.sh --describe`): the 16 bytes in URL-safe base64 without padding (22 characters).
 */

const METADATA = 3;
const VERSION = 12;
/** Kafka's error codes the answer may carry per topic, by number (the rest are named by number). */
const TOPIC_ERRORS: Readonly<Record<number, string>> = { 3: 'UNKNOWN_TOPIC_OR_PARTITION', 5: 'LEADER_NOT_AVAILABLE', 17: 'INVALID_TOPIC_EXCEPTION', 29: 'TOPIC_AUTHORIZATION_FAILED' };

/** An error a broker answered for one topic (`type` Kafka's name of the error code). */
export class TopicMetadataError extends Error {
  constructor(
    readonly topic: string,
    readonly errorCode: number,
  ) {
    super(`metadata of topic ${topic}: ${TOPIC_ERRORS[errorCode] ?? `error code ${errorCode}`}`);
    this.name = 'TopicMetadataError';
  }
  /** Kafka's name of the error code (`UNKNOWN_TOPIC_OR_PARTITION`, …). */
  get type(): string {
    return TOPIC_ERRORS[this.errorCode] ?? `ERROR_${this.errorCode}`;
  }
}

function uvarint(n: number): Buffer {
  const out: number[] = [];
  let v = n >>> 0;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

function compactString(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([uvarint(b.length + 1), b]);
}

/** Encodes a Metadata v12 request (size prefix, header v2, body) for `topics`. */
export function encodeMetadataRequest(correlationId: number, clientId: string, topics: readonly string[]): Buffer {
  const client = Buffer.from(clientId, 'utf8');
  const header = Buffer.alloc(10);
  header.writeInt16BE(METADATA, 0);
  header.writeInt16BE(VERSION, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(client.length, 8);
  const parts: Buffer[] = [header, client, uvarint(0), uvarint(topics.length + 1)];
  for (const t of topics) parts.push(Buffer.alloc(16), compactString(t), uvarint(0));
  // allow_auto_topic_creation = false, include_topic_authorized_operations = false, no tagged fields
  parts.push(Buffer.from([0, 0]), uvarint(0));
  const body = Buffer.concat(parts);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length, 0);
  return Buffer.concat([size, body]);
}

class Reader {
  private at = 0;
  constructor(private readonly b: Buffer) {}
  int8(): number {
    return this.b.readInt8((this.at += 1) - 1);
  }
  int16(): number {
    return this.b.readInt16BE((this.at += 2) - 2);
  }
  int32(): number {
    return this.b.readInt32BE((this.at += 4) - 4);
  }
  uvarint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.b[this.at++];
      if (byte === undefined) throw new Error('Metadata v12 answer ends inside a varint');
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
  }
  bytes(n: number): Buffer {
    if (this.at + n > this.b.length) throw new Error('Metadata v12 answer is shorter than its fields');
    return this.b.subarray((this.at += n) - n, this.at);
  }
  compactString(): string | null {
    const n = this.uvarint();
    return n === 0 ? null : this.bytes(n - 1).toString('utf8');
  }
  /** Skips tagged fields. */
  tags(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.bytes(this.uvarint());
    }
  }
  compactArray<T>(each: () => T): T[] {
    const n = this.uvarint();
    const out: T[] = [];
    for (let i = 0; i < n - 1; i++) out.push(each());
    return out;
  }
}

/** One topic of a Metadata v12 answer: its name, error code and id (`null` when all zero: a broker without topic ids). */
export interface TopicIdEntry {
  readonly name: string;
  readonly errorCode: number;
  readonly topicId: string | null;
}

/** Decodes a Metadata v12 answer (without its size prefix): correlation id and the topics. */
export function decodeMetadataResponse(frame: Buffer): { correlationId: number; topics: TopicIdEntry[] } {
  const r = new Reader(frame);
  const correlationId = r.int32();
  r.tags(); // response header v1
  r.int32(); // throttle_time_ms
  r.compactArray(() => {
    r.int32();
    r.compactString();
    r.int32();
    r.compactString();
    r.tags();
  });
  r.compactString(); // cluster_id
  r.int32(); // controller_id
  const topics = r.compactArray(() => {
    const errorCode = r.int16();
    const name = r.compactString() ?? '';
    const id = r.bytes(16);
    r.int8(); // is_internal
    r.compactArray(() => {
      r.int16();
      r.int32();
      r.int32();
      r.int32();
      r.compactArray(() => r.int32());
      r.compactArray(() => r.int32());
      r.compactArray(() => r.int32());
      r.tags();
    });
    r.int32(); // topic_authorized_operations
    r.tags();
    return { name, errorCode, topicId: id.every((x) => x === 0) ? null : Buffer.from(id).toString('base64url') };
  });
  return { correlationId, topics };
}

/**
 * A connection that asks brokers for topic ids, one request at a time. Connects on first use to
 * the first bootstrap broker that answers; after an error the connection is dropped and the next
 * call connects again.
 */
export class TopicIdClient {
  private socket: Socket | null = null;
  private buffered = Buffer.alloc(0);
  private waiting: { resolve: (frame: Buffer) => void; reject: (e: Error) => void } | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private correlation = 0;

  constructor(
    private readonly brokers: readonly string[],
    private readonly clientId: string,
    /** Time to connect and to get an answer, in ms. */
    private readonly timeoutMs = 10_000,
  ) {}

  /**
   * Topic name → topic id (`null`: the broker has no topic ids).
   * @throws TopicMetadataError when a broker answers an error for a topic (e.g. `UNKNOWN_TOPIC_OR_PARTITION`);
   *   a network error or a timeout
   */
  fetch(topics: readonly string[]): Promise<Map<string, string | null>> {
    const run = this.chain.then(() => this.request(topics));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Closes the connection. */
  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private async request(topics: readonly string[]): Promise<Map<string, string | null>> {
    try {
      const socket = this.socket ?? (await this.open());
      const id = (this.correlation = (this.correlation + 1) % 0x7fffffff);
      const frame = await new Promise<Buffer>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no Metadata answer within ${this.timeoutMs} ms`)), this.timeoutMs);
        this.waiting = {
          resolve: (f) => (clearTimeout(timer), resolve(f)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        };
        socket.write(encodeMetadataRequest(id, this.clientId, topics));
      });
      const answer = decodeMetadataResponse(frame);
      if (answer.correlationId !== id) throw new Error(`Metadata answer for request ${answer.correlationId}, expected ${id}`);
      const out = new Map<string, string | null>();
      for (const t of answer.topics) {
        if (t.errorCode !== 0) throw new TopicMetadataError(t.name, t.errorCode);
        out.set(t.name, t.topicId);
      }
      return out;
    } catch (e) {
      this.close();
      throw e;
    } finally {
      this.waiting = null;
    }
  }

  private async open(): Promise<Socket> {
    let last: unknown = new Error('no broker');
    for (const b of this.brokers) {
      const i = b.lastIndexOf(':');
      const host = b.slice(0, i);
      const port = Number(b.slice(i + 1));
      try {
        const socket = await new Promise<Socket>((resolve, reject) => {
          const s = connect({ host, port });
          const timer = setTimeout(() => (s.destroy(), reject(new Error(`connect to ${b} timed out`))), this.timeoutMs);
          s.once('connect', () => (clearTimeout(timer), resolve(s)));
          s.once('error', (e) => (clearTimeout(timer), reject(e)));
        });
        socket.on('data', (chunk) => this.onData(chunk));
        socket.on('error', (e) => this.waiting?.reject(e));
        socket.on('close', () => {
          this.waiting?.reject(new Error(`connection to ${b} closed`));
          if (this.socket === socket) this.socket = null;
        });
        this.buffered = Buffer.alloc(0);
        this.socket = socket;
        return socket;
      } catch (e) {
        last = e;
      }
    }
    throw last;
  }

  private onData(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 4) {
      const size = this.buffered.readInt32BE(0);
      if (this.buffered.length < 4 + size) return;
      const frame = this.buffered.subarray(4, 4 + size);
      this.buffered = this.buffered.subarray(4 + size);
      this.waiting?.resolve(Buffer.from(frame));
    }
  }
}
