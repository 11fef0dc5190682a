import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkMigrationSource, withoutDownMethods } from '../../scripts/migration-check/check';
import { migrationFiles } from '../../scripts/check-migrations';

/** A migration file around `up` SQL (and optionally `down` SQL), as the repository writes them. */
const migration = (up: string, down = 'DROP TABLE IF EXISTS events') => `
import type { MigrationInterface, QueryRunner } from 'typeorm';
export class Fixture1800000000000 implements MigrationInterface {
  name = 'Fixture1800000000000';
  public async up(q: QueryRunner): Promise<void> {
    await q.query(\`${up}\`);
  }
  public async down(q: QueryRunner): Promise<void> {
    await q.query(\`${down}\`);
  }
}
`;

const rules = (src: string) => checkMigrationSource('fixture.ts', src).map((v) => [v.rule, v.table, v.column ?? null]);

describe('migration check (scripts/check-migrations.ts)', () => {
  it('refuses ALTER TABLE … DROP COLUMN on a ledger table', () => {
    expect(rules(migration('ALTER TABLE events DROP COLUMN payload_hash'))).toEqual([['drop-column', 'events', 'payload_hash']]);
    expect(rules(migration('ALTER TABLE public.rejections DROP COLUMN IF EXISTS "route"'))).toEqual([['drop-column', 'rejections', 'route']]);
    expect(rules(migration('ALTER TABLE ONLY outbox ADD COLUMN x int, DROP y'))).toEqual([['drop-column', 'outbox', 'y']]);
  });

  it('refuses ALTER COLUMN … TYPE and SET DATA TYPE on a ledger table', () => {
    expect(rules(migration('ALTER TABLE streams ALTER COLUMN version TYPE integer'))).toEqual([['retype-column', 'streams', 'version']]);
    expect(rules(migration('ALTER TABLE "events" ALTER "data" SET DATA TYPE json USING data::json'))).toEqual([['retype-column', 'events', 'data']]);
  });

  it('refuses DROP TABLE of a ledger table, alone or in a list', () => {
    expect(rules(migration('DROP TABLE IF EXISTS idempotency_keys'))).toEqual([['drop-table', 'idempotency_keys', null]]);
    expect(rules(migration('DROP TABLE scratch, public.query_log CASCADE'))).toEqual([['drop-table', 'query_log', null]]);
  });

  it('reports a DROP COLUMN followed by ADD COLUMN of the same name as a retype by DROP/ADD', () => {
    const src = migration('ALTER TABLE events DROP COLUMN occurred_at`);\n    await q.query(`ALTER TABLE events ADD COLUMN occurred_at text');
    expect(rules(src)).toEqual([
      ['drop-column', 'events', 'occurred_at'],
      ['drop-add-column', 'events', 'occurred_at'],
    ]);
  });

  it('reports the line of the statement', () => {
    const [v] = checkMigrationSource('f.ts', migration('ALTER TABLE events DROP COLUMN x'));
    expect(v.line).toBe(6);
  });

  it('lets additive changes, other schemas, non-ledger tables and down steps pass', () => {
    expect(rules(migration('ALTER TABLE events ADD COLUMN trace_id text'))).toEqual([]);
    expect(rules(migration('ALTER TABLE events DROP CONSTRAINT events_chk, ALTER COLUMN x DROP NOT NULL, ALTER COLUMN y DROP DEFAULT'))).toEqual([]);
    expect(rules(migration('ALTER TABLE ${s}.analytics_outbox DROP COLUMN occurred_at'))).toEqual([]);
    expect(rules(migration('ALTER TABLE "read".events DROP COLUMN x'))).toEqual([]);
    expect(rules(migration('DROP TABLE event_position'))).toEqual([]);
    expect(rules(migration('CREATE TABLE t (a int)', 'ALTER TABLE events DROP COLUMN a'))).toEqual([]);
  });

  it('blanks only the down method, keeping line numbers', () => {
    const src = migration('SELECT 1', 'DROP TABLE events');
    const out = withoutDownMethods(src);
    expect(out.split('\n').length).toBe(src.split('\n').length);
    expect(out).not.toContain('DROP TABLE events');
    expect(out).toContain('SELECT 1');
  });

  it('finds every migration of the repository and passes them', () => {
    const root = join(__dirname, '..', '..');
    const files = migrationFiles(root);
    const rel = files.map((f) => relative(root, f));
    expect(rel).toEqual(
      expect.arrayContaining([
        'libs/event-store/src/migrations/1795950000000-CreateEvents.ts',
        'libs/projections/src/migrations/1733000000000-create-read-model.ts',
        'apps/ledger/src/persistence/migrations/1733100000000-create-query-log.ts',
      ]),
    );
    expect(files.length).toBeGreaterThanOrEqual(20);
    expect(files.flatMap((f) => checkMigrationSource(f, readFileSync(f, 'utf8')))).toEqual([]);
  });
});
