import { createServer } from 'node:net';
import { StartupError } from '@ledger/config';
import { createKafka } from '@ledger/kafka';
import { assertBrokerReachable, assertDatabaseReachable, isUnreachable } from './preflight';

/** A port nothing listens on (just released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  const { port } = s.address() as { port: number };
  await new Promise((res) => s.close(res));
  return port;
}

describe('the start-up checks (docs/architecture.md §5)', () => {
  it('Given a database URL where nothing listens, Then StartupError STARTUP.DATABASE_UNREACHABLE names the variable and the place, not the password', async () => {
    const port = await closedPort();
    const err: unknown = await assertDatabaseReachable(`postgres://ledger_app:s3cret-pw@127.0.0.1:${port}/ledger`, 'RELAY_DATABASE_URL').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    const e = err as StartupError;
    expect(e.code).toBe('STARTUP.DATABASE_UNREACHABLE');
    expect(e.details).toEqual({ variable: 'RELAY_DATABASE_URL', target: `127.0.0.1:${port}/ledger`, reason: `connect ECONNREFUSED 127.0.0.1:${port}` });
    expect(e.message).toBe(
      `STARTUP.DATABASE_UNREACHABLE: the database 127.0.0.1:${port}/ledger does not answer (connect ECONNREFUSED 127.0.0.1:${port}): start PostgreSQL (npm run stack:up) or point RELAY_DATABASE_URL at one that does`,
    );
    expect(e.message).not.toContain('s3cret');
  });

  it('Given brokers where nothing listens, Then StartupError STARTUP.BROKER_UNREACHABLE names KAFKA_BROKERS once the wait is over', async () => {
    const brokers = [`127.0.0.1:${await closedPort()}`];
    const kafka = createKafka({ clientId: 'preflight-spec', brokers, logLevel: 'nothing', retries: 0, connectionTimeoutMs: 500, requestTimeoutMs: 500 });
    const err: unknown = await assertBrokerReachable(kafka, brokers, 'KAFKA_BROKERS', 0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).code).toBe('STARTUP.BROKER_UNREACHABLE');
    expect((err as StartupError).message).toMatch(new RegExp(`^STARTUP\\.BROKER_UNREACHABLE: no Kafka broker answers at ${brokers[0]} \\(.*ECONNREFUSED.*\\): .* point KAFKA_BROKERS at one that does$`));
  });

  it('tells "nothing answers" from other refusals', () => {
    expect(isUnreachable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isUnreachable(new Error('Connection terminated due to connection timeout'))).toBe(true);
    expect(isUnreachable(Object.assign(new Error('password authentication failed for user "x"'), { code: '28P01' }))).toBe(false);
  });
});
