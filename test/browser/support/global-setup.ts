/**
 * Global setup of the browser tier (test/browser/playwright.config.ts): PostgreSQL and Kafka
 * (`scripts/stack.sh up`, idempotent), a fresh database of the tier's own (`BROWSER_DB_NAME`,
 * default `ledger_browser`; `scripts/stack.sh fresh-test-db`), this run's own Kafka topics, then
 * the REAL services from `dist/` as child processes (./services.ts) with their runtime database
 * roles (docs/architecture.md §10), the API on a free loopback port in development mode with the
 * rate limits lifted as scripts/demo.sh lifts them; waits for `/health`, seeds the ledger through the
 * HTTP API (./seed.ts) and writes `.stack/browser/stack.json` for the specs.
 *
 * Returns the teardown, which Playwright runs after the tests whatever their outcome: it stops the
 * services (and anything in their process groups) and leaves their logs in `.stack/browser/logs`.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { configLib, infraLib, kafkaLib, REPO_ROOT } from './ledger-dist';
import { seedLedger } from './seed';
import { assertBuilt, freePort, killLeftovers, rememberPids, startService, stopServices, tail, type Service } from './services';
import { BROWSER_DIR, LOGS_DIR, SCREENSHOTS_DIR, STACK_FILE, writeStack } from './stack-file';

const log = (line: string) => process.stderr.write(`[browser] ${line}\n`);

/** Runs a command in the checkout, its output appended to `.stack/browser/logs/<logName>`. @throws on a non-zero exit */
function run(cmd: string, args: string[], env: Record<string, string>, logName: string, timeoutMs: number): Promise<void> {
  const logFile = join(LOGS_DIR, logName);
  const fd = openSync(logFile, 'a');
  writeSync(fd, `\n===== ${new Date().toISOString()} $ ${cmd} ${args.join(' ')} =====\n`);
  return new Promise<void>((res, rej) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) res();
      else rej(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${tail(logFile)}`));
    });
  });
}

/** Polls until `check` holds; fails early when `dead()` says the service died. */
async function waitUntil(what: string, check: () => Promise<boolean>, dead: () => string | null, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = dead();
    if (d) throw new Error(`${what}: ${d}`);
    try {
      if (await check()) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Playwright's global setup; resolves the teardown. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const t0 = Date.now();
  assertBuilt();
  killLeftovers();
  rmSync(STACK_FILE, { force: true });
  rmSync(LOGS_DIR, { recursive: true, force: true });
  rmSync(SCREENSHOTS_DIR, { recursive: true, force: true });
  mkdirSync(LOGS_DIR, { recursive: true });
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });

  const dbName = process.env.BROWSER_DB_NAME || 'ledger_browser';
  if (!/^[a-z_][a-z0-9_]*$/.test(dbName) || dbName === 'ledger') throw new Error(`BROWSER_DB_NAME must be a plain lower-case name other than ledger (got ${dbName})`);
  await run('bash', ['scripts/stack.sh', 'up'], {}, 'stack.log', 240_000);
  await run('bash', ['scripts/stack.sh', 'fresh-test-db'], { TEST_DB_NAME: dbName }, 'stack.log', 60_000);
  log(`database ${dbName} fresh, stack up (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

  // this run's own topics: a fresh database starts its streams again, and no other suite reads them
  const runTag = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const eventsTopic = `browser.ledger.events.${runTag}`;
  const analytics = ['round-outcomes', 'settlements', 'roads'].map((k) => `browser.analytics.${k}.${runTag}`);
  const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',');
  const kafka = kafkaLib().createKafka({ clientId: `browser-setup-${runTag}`, brokers, logLevel: 'nothing' });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const configs = { 'retention.ms': '-1', 'cleanup.policy': 'delete' };
    await infraLib().ensureTopics(
      admin,
      [eventsTopic, ...analytics].map((name) => ({ name, partitions: 3, configs })),
    );
  } finally {
    await admin.disconnect();
  }

  const owner = `postgres://ledger_owner:ledger_owner@127.0.0.1:5432/${dbName}`;
  const asRole = configLib().databaseUrlForRole;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // every URL and key said out loud: nothing inherited (a developer's DATABASE_URL, JWT_SECRET) may redirect a service
  const common: Record<string, string> = {
    LEDGER_ENV: 'development',
    LOG_LEVEL: process.env.BROWSER_LOG_LEVEL || 'info',
    DATABASE_URL: asRole(owner, 'ledger_app'),
    MIGRATIONS_DATABASE_URL: owner,
    RELAY_DATABASE_URL: asRole(owner, 'ledger_relay'),
    PROJECTOR_DATABASE_URL: asRole(owner, 'ledger_projector'),
    KAFKA_BROKERS: brokers.join(','),
    LEDGER_EVENTS_TOPIC: eventsTopic,
    PROJECTIONS_SCHEMA: 'read',
    ANCHOR_FILE: join(BROWSER_DIR, 'anchors', 'anchors.jsonl'),
    ANCHOR_TOPIC: `browser.ledger.anchors.${runTag}`,
    JWT_SECRET: '',
    RECORD_SIGNING_KEY: '',
    RELAY_CRASH_POINT: '',
    ANALYTICS_PUBLISHER_CRASH_POINT: '',
    PROJECTOR_FAULT_DELAY_IN_TX_MS: '',
  };
  rmSync(join(BROWSER_DIR, 'anchors'), { recursive: true, force: true });
  mkdirSync(join(BROWSER_DIR, 'anchors'), { recursive: true });
  const services: Service[] = [];
  const stop = async () => {
    await stopServices(services);
    log(`services stopped; logs in ${LOGS_DIR}`);
  };
  const dead = () => {
    const d = services.find((s) => s.gone());
    return d ? `${d.name} exited; its log ${d.logFile} ends:\n${tail(d.logFile)}` : null;
  };
  try {
    services.push(
      startService('api', {
        ...common,
        HOST: '127.0.0.1',
        PORT: String(port),
        // a whole casino from one address (scripts/demo.sh): the rate limits lifted, body and heavy-read limits as configured
        RATE_LIMIT_PER_ADDRESS: '100000000',
        RATE_LIMIT_TABLE_DEVICE: '100000000',
        RATE_LIMIT_BETTING_PLATFORM: '100000000',
        RATE_LIMIT_PIT_MANAGER: '100000000',
        RATE_LIMIT_AUDITOR: '100000000',
      }),
    );
    rememberPids(services);
    // the API migrates the fresh database; the relay and the projector start once it serves
    await waitUntil('the API on ' + baseUrl, async () => (await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2000) })).ok, dead, 90_000);
    services.push(startService('relay', { ...common, RELAY_POLL_INTERVAL_MS: '100' }));
    services.push(
      startService('projector', {
        ...common,
        PROJECTOR_GROUP: `browser-projector-${runTag}`,
        ANALYTICS_ROUND_OUTCOMES_TOPIC: analytics[0],
        ANALYTICS_SETTLEMENTS_TOPIC: analytics[1],
        ANALYTICS_ROADS_TOPIC: analytics[2],
      }),
    );
    rememberPids(services);
    log(`API up on ${baseUrl} (${((Date.now() - t0) / 1000).toFixed(1)} s); seeding`);
    const seeded = await Promise.race([
      seedLedger(baseUrl),
      new Promise<never>((_, rej) => {
        const timer = setInterval(() => {
          const d = dead();
          if (d) {
            clearInterval(timer);
            rej(new Error(`while seeding: ${d}`));
          }
        }, 500);
        timer.unref();
      }),
    ]);
    writeStack({ baseUrl, consoleUrl: `${baseUrl}/console`, dbName, eventsTopic, runTag, logsDir: LOGS_DIR, seededAt: new Date().toISOString(), ...seeded });
    log(`seeded ${seeded.shoes.length} shoes (${seeded.shoes.reduce((n, s) => n + s.roundIds.length, 0)} rounds) and applied by the projections; setup ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } catch (e) {
    await stop();
    throw e;
  }
  // a runner that dies without its teardown: the services exit by themselves (orphan guard)
  return stop;
}
