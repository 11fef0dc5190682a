import { LEDGER_ANCHORS_TOPIC, LEDGER_EVENTS_TOPIC } from '@ledger/infra';
import { DEFAULT_PROJECTOR_GROUP } from '@ledger/projections';
import { DEFAULT_ANALYTICS_TOPICS } from '@ledger/read-model';
import { DEFAULT_SIGNIFICANT_SETTINGS, significantSettingsOf } from '@ledger/significant-events';
import { DEFAULT_EVENTS_TOPIC as STORE_DEFAULT_TOPIC } from '@ledger/event-store';
import { CONFIG_SCHEMAS, ConfigError, DEFAULT_ANCHORS_TOPIC, DEFAULT_EVENTS_TOPIC, LedgerApiEnv, loadConfig, MigrationCliEnv, ProjectorEnv, RelayEnv, TokenToolEnv, VerifyEnv, type EnvSource } from '@ledger/config';

/** The problems `loadConfig` refuses `env` with (fails the test when it accepts it). */
function refusal(schema: new () => object, env: EnvSource): ConfigError {
  try {
    loadConfig(schema, env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error(`${schema.name} accepted ${JSON.stringify(env)}`);
}

const SECRET = 'a-production-secret-of-more-than-32-bytes';

describe('loadConfig (docs/architecture.md §5)', () => {
  it('fills every default when nothing is set (development mode)', () => {
    const relay = loadConfig(RelayEnv, { LEDGER_ENV: 'development' });
    expect(relay).toMatchObject({
      DATABASE_URL: 'postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger',
      RELAY_DATABASE_URL: 'postgres://ledger_relay:ledger_relay@127.0.0.1:5432/ledger',
      KAFKA_BROKERS: ['127.0.0.1:9092'],
      RELAY_BATCH_SIZE: 2000,
      RELAY_POLL_INTERVAL_MS: 200,
      LOG_LEVEL: 'info',
    });
    expect(relay.RELAY_CRASH_POINT).toBeUndefined();
    expect(Object.isFrozen(relay)).toBe(true);
  });

  it('converts values to their types and ignores variables the schema does not declare', () => {
    const c = loadConfig(ProjectorEnv, {
      KAFKA_BROKERS: ' a:1, b:2 ,',
      ANALYTICS_ENABLED: 'false',
      ANALYTICS_PUBLISH: '0',
      GAMING_DAY_CUTOFF_HOUR: '0',
      GAMING_DAY_TZ: 'Asia/Bangkok',
      PATH: '/bin',
    });
    expect(c.KAFKA_BROKERS).toEqual(['a:1', 'b:2']);
    expect(c.ANALYTICS_ENABLED).toBe(false);
    expect(c.ANALYTICS_PUBLISH).toBe(false);
    expect(c.GAMING_DAY_CUTOFF_HOUR).toBe(0);
    expect(c.GAMING_DAY_TZ).toBe('Asia/Bangkok');
    expect(c).not.toHaveProperty('PATH');
  });

  it('refuses RELAY_POLL_INTERVAL_MS=abc naming the variable and the expected form (it used to poll every millisecond)', () => {
    const e = refusal(RelayEnv, { RELAY_POLL_INTERVAL_MS: 'abc' });
    expect(e.code).toBe('CONFIG.INVALID');
    expect(e.problems).toEqual([{ variable: 'RELAY_POLL_INTERVAL_MS', message: 'expected an integer 10..60000 (ms), got "abc"' }]);
    expect(e.message).toContain('RELAY_POLL_INTERVAL_MS: expected an integer 10..60000 (ms), got "abc"');
  });

  it.each([
    ['RELAY_POLL_INTERVAL_MS', '1e3'],
    ['RELAY_POLL_INTERVAL_MS', '0x10'],
    ['RELAY_POLL_INTERVAL_MS', '200.0'],
    ['RELAY_POLL_INTERVAL_MS', '5'],
    ['RELAY_BATCH_SIZE', '5001'],
    ['RELAY_BATCH_SIZE', '-1'],
    ['KAFKA_BROKERS', 'localhost'],
    ['KAFKA_BROKERS', ' , '],
    ['DATABASE_URL', 'mysql://x@y/z'],
    ['DATABASE_URL', 'not a url'],
    ['LOG_LEVEL', 'verbose'],
    ['LEDGER_ENV', 'dev'],
    ['RELAY_CRASH_POINT', 'sometimes'],
  ])('refuses %s=%j naming it', (variable, value) => {
    const e = refusal(RelayEnv, { LEDGER_ENV: 'development', [variable]: value });
    expect(e.problems.map((p) => p.variable)).toEqual([variable]);
    expect(e.problems[0].message).toMatch(/^expected .+, got /);
  });

  it('reports every bad variable at once, in the schema order', () => {
    const e = refusal(ProjectorEnv, { GAMING_DAY_TZ: 'Mars/Olympus', ANALYTICS_ENABLED: 'yes', PROJECTIONS_SCHEMA: 'public', RUN_MIGRATIONS: 'no' });
    expect(e.problems.map((p) => p.variable)).toEqual(['PROJECTIONS_SCHEMA', 'RUN_MIGRATIONS', 'GAMING_DAY_TZ', 'ANALYTICS_ENABLED']);
  });

  it('counts an empty value as unset (the default stays)', () => {
    expect(loadConfig(RelayEnv, { RELAY_POLL_INTERVAL_MS: '', RELAY_CRASH_POINT: '' })).toMatchObject({ RELAY_POLL_INTERVAL_MS: 200, RELAY_CRASH_POINT: undefined });
  });

  it('reads the older name READ_SCHEMA when PROJECTIONS_SCHEMA is unset, and names it when it is bad', () => {
    expect(loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development', READ_SCHEMA: 'bench_read' }).PROJECTIONS_SCHEMA).toBe('bench_read');
    expect(loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development', READ_SCHEMA: 'old', PROJECTIONS_SCHEMA: 'new' }).PROJECTIONS_SCHEMA).toBe('new');
    expect(refusal(LedgerApiEnv, { LEDGER_ENV: 'development', READ_SCHEMA: 'Bad-Name' }).problems[0].variable).toBe('READ_SCHEMA');
  });

  describe('the anchors (docs/architecture.md §10): the relay publishes, the API and verify check', () => {
    it('fills the defaults, and reads each variable in every schema that declares it', () => {
      expect(loadConfig(RelayEnv, {})).toMatchObject({
        ANCHOR_FILE: '.stack/anchors/anchors.jsonl',
        ANCHOR_TOPIC: 'baccarat.ledger.anchors.v1',
        ANCHOR_INTERVAL_MS: 10_000,
        ANCHOR_REQUIRED: false,
        ANCHOR_PRIVATE_KEY_FILE: undefined,
        LEDGER_ID: undefined,
      });
      const env = { LEDGER_ENV: 'development', ANCHOR_PUBLIC_KEY_FILE: 'a.pem, b.pem', ANCHOR_TOPIC: 't.anchors', KAFKA_BROKERS: 'k:1' };
      for (const schema of [LedgerApiEnv, VerifyEnv]) {
        expect(loadConfig(schema, env)).toMatchObject({ ANCHOR_PUBLIC_KEY_FILE: ['a.pem', 'b.pem'], ANCHOR_TOPIC: 't.anchors', KAFKA_BROKERS: ['k:1'], LEDGER_EVENTS_TOPIC: DEFAULT_EVENTS_TOPIC });
      }
      expect(loadConfig(VerifyEnv, {}).ANCHOR_PUBLIC_KEY_FILE).toEqual(['.stack/anchors/anchor-public.pem']);
    });

    it.each([
      [RelayEnv, 'ANCHOR_INTERVAL_MS', 'abc', 'expected an integer 100..86400000 (ms), got "abc"'],
      [RelayEnv, 'ANCHOR_INTERVAL_MS', '10', 'expected an integer 100..86400000 (ms), got "10"'],
      [RelayEnv, 'ANCHOR_REQUIRED', 'yes', 'expected true or false, got "yes"'],
      [RelayEnv, 'ANCHOR_TOPIC', 'a topic', 'expected a Kafka topic name ([A-Za-z0-9._-], 1..249), got "a topic"'],
      [RelayEnv, 'ANCHOR_PRIVATE_KEY_FILE', 'no/such/key.pem', 'expected the path of a PEM private key file (Ed25519, PKCS#8), got "no/such/key.pem"'],
      [RelayEnv, 'LEDGER_ID', 'x'.repeat(201), expect.stringMatching(/^expected printable ASCII without spaces \(1\.\.200\), got "x+…"$/)],
      [LedgerApiEnv, 'ANCHOR_PUBLIC_KEY_FILE', ' , ', 'expected comma-separated file paths, got " , "'],
      [LedgerApiEnv, 'KAFKA_BROKERS', 'localhost', 'expected comma-separated host:port, got "localhost"'],
      [VerifyEnv, 'ANCHOR_FILE', 'a\nb', 'expected a file path, got "a\\nb"'],
      [VerifyEnv, 'LEDGER_ID', 'casino 1', 'expected printable ASCII without spaces (1..200), got "casino 1"'],
    ] as const)('%p refuses %s=%j naming it', (schema, variable, value, message) => {
      expect(refusal(schema, { LEDGER_ENV: 'development', [variable]: value }).problems).toEqual([{ variable, message }]);
    });

    it('ANCHOR_REQUIRED=true outside development mode needs ANCHOR_PRIVATE_KEY_FILE (development mode generates one)', () => {
      const e = refusal(RelayEnv, { ANCHOR_REQUIRED: 'true' });
      expect(e.problems.map((p) => p.variable)).toEqual(['ANCHOR_PRIVATE_KEY_FILE']);
      expect(e.problems[0].message).toMatch(/^required with ANCHOR_REQUIRED=true outside development mode/);
      expect(loadConfig(RelayEnv, { ANCHOR_REQUIRED: 'true', ANCHOR_PRIVATE_KEY_FILE: 'package.json' }).ANCHOR_PRIVATE_KEY_FILE).toBe('package.json');
      expect(loadConfig(RelayEnv, { ANCHOR_REQUIRED: 'true', LEDGER_ENV: 'development' }).ANCHOR_REQUIRED).toBe(true);
      expect(loadConfig(RelayEnv, {}).ANCHOR_PRIVATE_KEY_FILE).toBeUndefined();
    });
  });

  describe('the signing key of the API (docs/architecture.md §10)', () => {
    it('refuses to start outside development mode without one, naming JWT_SECRET (the missing required value)', () => {
      for (const env of [{}, { LEDGER_ENV: 'production' }, { LEDGER_ENV: 'production', JWT_SECRET: '' }]) {
        const e = refusal(LedgerApiEnv, env);
        expect(e.problems).toHaveLength(1);
        expect(e.problems[0].variable).toBe('JWT_SECRET');
        expect(e.problems[0].message).toMatch(/required outside development mode \(LEDGER_ENV=development\)/);
      }
    });

    it('accepts a long enough secret, or a public key file instead', () => {
      expect(loadConfig(LedgerApiEnv, { JWT_SECRET: SECRET }).JWT_SECRET).toBe(SECRET);
      expect(loadConfig(LedgerApiEnv, { JWT_PUBLIC_KEY_FILE: 'package.json' }).JWT_SECRET).toBeUndefined();
      expect(loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development' }).JWT_SECRET).toBeUndefined();
    });

    it('refuses a secret shorter than 32 bytes without echoing it', () => {
      const e = refusal(LedgerApiEnv, { LEDGER_ENV: 'development', JWT_SECRET: 'short-secret' });
      expect(e.problems).toEqual([{ variable: 'JWT_SECRET', message: 'expected a secret of at least 32 bytes, got a value of 12 bytes' }]);
      expect(e.message).not.toContain('short-secret');
    });

    it('refuses two keys at once and a key file that does not exist', () => {
      expect(refusal(LedgerApiEnv, { JWT_SECRET: SECRET, JWT_PUBLIC_KEY_FILE: 'package.json' }).problems.map((p) => p.variable)).toEqual(['JWT_PUBLIC_KEY_FILE']);
      expect(refusal(LedgerApiEnv, { JWT_JWKS_FILE: 'no/such/jwks.json' }).problems).toEqual([{ variable: 'JWT_JWKS_FILE', message: 'expected the path of a JWKS (JSON) file, got "no/such/jwks.json"' }]);
    });

    it('applies the same rule to npm run token', () => {
      expect(refusal(TokenToolEnv, {}).problems.map((p) => p.variable)).toEqual(['JWT_SECRET']);
      expect(loadConfig(TokenToolEnv, { JWT_PRIVATE_KEY_FILE: 'package.json' }).JWT_PRIVATE_KEY_FILE).toBe('package.json');
    });

    it('has the documented token policy defaults', () => {
      expect(loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development' })).toMatchObject({
        JWT_ISSUER: 'baccarat-ledger',
        JWT_AUDIENCE: 'baccarat-ledger-api',
        JWT_MAX_LIFETIME_SECONDS: 43_200,
        JWT_CLOCK_TOLERANCE_SECONDS: 30,
      });
      expect(refusal(LedgerApiEnv, { LEDGER_ENV: 'development', JWT_MAX_LIFETIME_SECONDS: '12h' }).problems[0].variable).toBe('JWT_MAX_LIFETIME_SECONDS');
    });
  });

  it('refuses a TABLES_FILE that does not exist', () => {
    expect(refusal(LedgerApiEnv, { LEDGER_ENV: 'development', TABLES_FILE: 'config/none.json' }).problems[0].variable).toBe('TABLES_FILE');
  });

  it('agrees with the defaults the libraries use', () => {
    const projector = loadConfig(ProjectorEnv, {});
    expect(DEFAULT_EVENTS_TOPIC).toBe(LEDGER_EVENTS_TOPIC);
    expect(DEFAULT_EVENTS_TOPIC).toBe(STORE_DEFAULT_TOPIC);
    expect(DEFAULT_ANCHORS_TOPIC).toBe(LEDGER_ANCHORS_TOPIC);
    expect(projector.PROJECTOR_GROUP).toBe(DEFAULT_PROJECTOR_GROUP);
    expect(projector.ANALYTICS_ROUND_OUTCOMES_TOPIC).toBe(DEFAULT_ANALYTICS_TOPICS['round-outcome']);
    expect(projector.ANALYTICS_SETTLEMENTS_TOPIC).toBe(DEFAULT_ANALYTICS_TOPICS.settlement);
    expect(projector.ANALYTICS_ROADS_TOPIC).toBe(DEFAULT_ANALYTICS_TOPICS.roads);
  });

  it('derives the database URL of each process from DATABASE_URL after validation: same server and database, its own role (docs/architecture.md §10)', () => {
    const DB = 'postgres://ledger_app:ledger_app@db.internal:6432/elsewhere?sslmode=require';
    const user = (url: string) => new URL(url).username;
    const api = loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development', DATABASE_URL: DB });
    expect(api.MIGRATIONS_DATABASE_URL).toBe('postgres://ledger_owner:ledger_owner@db.internal:6432/elsewhere?sslmode=require');
    const projector = loadConfig(ProjectorEnv, { DATABASE_URL: DB });
    expect([user(projector.PROJECTOR_DATABASE_URL), user(projector.MIGRATIONS_DATABASE_URL)]).toEqual(['ledger_projector', 'ledger_owner']);
    expect(new URL(projector.PROJECTOR_DATABASE_URL).pathname).toBe('/elsewhere');
    expect(user(loadConfig(RelayEnv, { DATABASE_URL: DB }).RELAY_DATABASE_URL)).toBe('ledger_relay');
    expect(user(loadConfig(MigrationCliEnv, {}).MIGRATIONS_DATABASE_URL)).toBe('ledger_owner');
    // an explicit URL wins, and is validated like any other
    expect(loadConfig(RelayEnv, { DATABASE_URL: DB, RELAY_DATABASE_URL: 'postgres://r:s@h/d' }).RELAY_DATABASE_URL).toBe('postgres://r:s@h/d');
    expect(refusal(ProjectorEnv, { PROJECTOR_DATABASE_URL: 'mysql://x@h/d' }).problems.map((p) => p.variable)).toEqual(['PROJECTOR_DATABASE_URL']);
    // a bad DATABASE_URL is named, not a derived one
    expect(refusal(RelayEnv, { DATABASE_URL: 'not a url' }).problems.map((p) => p.variable)).toEqual(['DATABASE_URL']);
  });

  it('every schema loads in development mode with nothing else set', () => {
    for (const { schema } of CONFIG_SCHEMAS) expect(() => loadConfig(schema as new () => object, { LEDGER_ENV: 'development' })).not.toThrow();
    expect(loadConfig(MigrationCliEnv, { DATABASE_URL: 'postgresql://u@h:5/d' }).DATABASE_URL).toBe('postgresql://u@h:5/d');
  });

  it('bounds FAIRNESS_ALERT_CONFIDENCE to 90/100 … 9999/10000; its defaults are the ones verify falls back to', () => {
    const dev = (over: Record<string, string>) => ({ LEDGER_ENV: 'development', ...over });
    for (const ok of ['90/100', '95/100', '9999/10000']) expect(loadConfig(LedgerApiEnv, dev({ FAIRNESS_ALERT_CONFIDENCE: ok })).FAIRNESS_ALERT_CONFIDENCE).toBe(ok);
    for (const bad of ['1/2', '89/100', '99999/100000', '99999999999999999/100000000000000000']) expect(refusal(LedgerApiEnv, dev({ FAIRNESS_ALERT_CONFIDENCE: bad })).problems[0].variable).toBe('FAIRNESS_ALERT_CONFIDENCE');
    const c = loadConfig(LedgerApiEnv, dev({}));
    expect(significantSettingsOf(c)).toEqual(DEFAULT_SIGNIFICANT_SETTINGS);
  });
});
