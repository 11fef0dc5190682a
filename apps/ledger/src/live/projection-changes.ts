import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Client } from 'pg';
import type { LedgerApiEnv } from '@ledger/config';
import { pgClientConfig } from '@ledger/infra';
import { parseChangeNotice, PROJECTION_CHANGES_CHANNEL, type ProjectionChangeNotice } from '@ledger/projections';
import type { ReadModel } from '@ledger/read-model';
import { exec } from '../kernel/sql';
import { READ_MODEL } from '../kernel/tokens';

/** First and largest wait before reconnecting the listening connection, in ms (doubling in between). */
export const LISTEN_BACKOFF_MS = { first: 250, max: 10_000 } as const;

/** A listener of the projector's change notices. */
export type ChangeListener = (notice: ProjectionChangeNotice) => void;

/**
 * The projector's change notices in the API (docs/architecture.md §7): ONE dedicated PostgreSQL
 * connection (`DATABASE_URL`, the app role: LISTEN needs no grant) that `LISTEN`s on
 * `ledger_projections` and hands each notice of this API's read-model schema (`PROJECTIONS_SCHEMA`)
 * to every subscriber. PostgreSQL sends a notice on the projector's COMMIT, so a subscriber never
 * hears of rows it cannot read yet. When the connection drops (PostgreSQL restarted) it reconnects
 * with a doubling backoff ({@link LISTEN_BACKOFF_MS}) and then tells every subscriber `all`
 * (changes may have been missed meanwhile). No polling: without notices nothing is read.
 */
/** `application_name` of the API's one LISTEN session (in `pg_stat_activity`). */
export const LISTEN_APPLICATION_NAME = 'ledger-api:listen';

@Injectable()
export class ProjectionChanges implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ProjectionChanges');
  private readonly url: string;
  private readonly schema: string;
  private readonly listeners = new Set<ChangeListener>();
  private client: Client | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;
  private backoff: number = LISTEN_BACKOFF_MS.first;
  private everConnected = false;
  private listeningNow = false;

  constructor(config: ConfigService<LedgerApiEnv, true>, @Inject(READ_MODEL) readModel: ReadModel) {
    this.url = config.get('DATABASE_URL', { infer: true });
    this.schema = readModel.schema;
  }

  onModuleInit(): void {
    // in the background: the API starts whether or not this connection is up yet
    void this.connect();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    this.client = null;
    this.listeners.clear();
    await c?.end().catch(() => undefined);
  }

  /** Whether the connection is LISTENing now. */
  get listening(): boolean {
    return this.listeningNow;
  }

  /** Subscribes `fn` to the notices of this API's schema. @returns the unsubscribe function */
  subscribe(fn: ChangeListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(notice: ProjectionChangeNotice): void {
    for (const fn of [...this.listeners]) {
      try {
        fn(notice);
      } catch (err) {
        this.logger.warn({ err: String(err) }, 'a live subscriber failed');
      }
    }
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    // the project's session settings (timeouts, keep-alive: docs/architecture.md §10), as every connection
    const client = new Client(pgClientConfig(this.url, LISTEN_APPLICATION_NAME));
    let dropped = false;
    const drop = (why: string) => {
      if (dropped) return;
      dropped = true;
      this.listeningNow = false;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      const wait = this.backoff;
      this.backoff = Math.min(this.backoff * 2, LISTEN_BACKOFF_MS.max);
      this.logger.warn({ why, retryInMs: wait }, 'live listen connection lost; reconnecting');
      this.retry = setTimeout(() => void this.connect(), wait);
    };
    client.on('error', (err) => drop(String(err)));
    client.on('end', () => drop('connection ended'));
    client.on('notification', (msg) => {
      if (msg.channel !== PROJECTION_CHANGES_CHANNEL) return;
      const notice = parseChangeNotice(msg.payload);
      if (notice && notice.schema === this.schema) this.emit(notice);
    });
    try {
      await client.connect();
      await exec(client, `LISTEN ${PROJECTION_CHANGES_CHANNEL}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.listeningNow = true;
      this.backoff = LISTEN_BACKOFF_MS.first;
      // after a reconnect, notices sent while away are lost: every subscriber re-reads every table
      if (this.everConnected) this.emit({ schema: this.schema, globalPosition: null, all: true });
      this.everConnected = true;
    } catch (err) {
      drop(String(err));
    }
  }
}
