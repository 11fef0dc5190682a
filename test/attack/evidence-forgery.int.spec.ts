/**
 * Attack: evidence tables an insider cannot quietly shape (docs/guarantees.md §9 and §12,
 * docs/anchors.md "The evidence chains"). The access log (`query_log`: who looked at what) and the wallet match runs were
 * tables the API's login could INSERT into, with any time and in any order. Now they are hash chains
 * appended only through `ledger_log_access`, `ledger_add_wallet_items` and `ledger_record_wallet_run`
 * (migration 1799300000000-evidence-chains), which stamp seq and time themselves.
 *
 * 1. With the API's login (`ledger_app`): INSERT, UPDATE and DELETE on the access log, the runs, their
 *    items and the chain heads are refused by the privilege system (SQLSTATE 42501); items cannot be
 *    added to a recorded run. On the old code the INSERTs succeeded.
 * 2. As the owner, who can switch the append-only triggers off (an administrator with more rights than
 *    the API): a row altered, a row removed, a row back-dated at the end of the chain with a correct
 *    hash and head, two rows swapped — of the access log and of the wallet runs — and a run's item
 *    altered: `verifyLedger` (`npm run -s verify`, step 6) names each forgery by its own kind, and the
 *    untouched chains give none. On the old code none was named.
 * 3. The chains' heads signed in a checkpoint (as the relay's anchor publisher collects them), then a
 *    row rewritten with every later hash and the head recomputed — a chain that checks out against
 *    itself: verify names it through the signed head (`ACCESS_LOG_HEAD_MISMATCH`), and only so.
 *
 * Every forgery is made inside a transaction that is rolled back (the shared test database keeps its
 * state), and verify reads that transaction through the owner's session.
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  GENESIS_ANCHOR_HASH,
  anchorText,
  buildCheckpoint,
  collectEvidenceHeads,
  databaseLedgerId,
  pgSession,
  publicKeyId,
  signCheckpoint,
  ItemsDigest,
  WALLET_ITEM_FIELDS,
  WALLET_ITEM_TAG_FIELD,
  verifyLedger,
  type BrokenEvidence,
  type DivergenceKind,
  type SqlSession,
} from '@ledger/anchors';
import { recordQueryLog } from '../../apps/ledger/src/kernel/query-log';
import { migrateAll } from '../../apps/ledger/src/persistence/migrate-all';
import { TEST_DATABASE_URL, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';

jest.setTimeout(120_000);

/** The owner's session inside its open transaction: verify's own BEGIN and ROLLBACK become no-ops, so it reads the forgery. */
function insideTransaction(client: Client): SqlSession {
  return {
    query: async (sql, params) => {
      if (/^\s*(START TRANSACTION|BEGIN|ROLLBACK|COMMIT)/i.test(sql)) return [];
      return (await client.query(sql, params as unknown[] | undefined)).rows;
    },
  };
}

/** What `sql` as `c` gives inside a rolled-back transaction: `succeeded` or `<SQLSTATE> <message>`. */
async function attempt(c: Client, sql: string, params: unknown[] = []): Promise<string> {
  await c.query('BEGIN');
  try {
    await c.query(sql, params);
    return 'succeeded';
  } catch (err) {
    const e = err as { code?: string; message: string };
    return `${e.code} ${e.message}`;
  } finally {
    await c.query('ROLLBACK');
  }
}

const REFUSED = /^42501 permission denied/;

/** A wallet item as `ledger_add_wallet_items` takes it. */
const item = (seq: number, amount: number) => ({
  seq,
  status: 'MISSING_IN_LEDGER',
  transaction_id: `tx-${randomUUID()}`,
  type: 'bet',
  bet_id: null,
  round_id: null,
  account_id: 'acc-1',
  currency: 'EUR',
  gaming_day: '2026-12-01',
  ledger_amount: null,
  wallet_amount: String(amount),
  wallet_line: seq + 1,
  wallet_time: '2026-12-01T10:00:00.123456Z',
  differences: '',
});

/** Every status at 0 (the runs stay in the shared test database: the API serves them to other specs as it would its own). */
const NO_COUNTS = { MATCHED: 0, MISSING_IN_WALLET: 0, MISSING_IN_LEDGER: 0, AMOUNT_DIFFERS: 0, FIELDS_DIFFER: 0, DUPLICATED: 0 };

/** A run as `ledger_record_wallet_run` takes it (as the API records one). */
const run = (runId: string, items: number) => ({
  runId,
  actorId: 'pm-evidence',
  actorRole: 'pit-manager',
  format: 'csv',
  fileSha256: 'a'.repeat(64),
  fileBytes: '120',
  fileRows: items,
  columnMap: { amount: 'amount' },
  fromDay: '2026-12-01',
  toDay: '2026-12-01',
  periodFrom: null,
  periodTo: null,
  scopeSource: 'file',
  totals: { ...NO_COUNTS, MISSING_IN_LEDGER: items },
  summary: [{ currency: 'EUR', gamingDay: '2026-12-01', counts: { ...NO_COUNTS, MISSING_IN_LEDGER: items }, ledgerAmount: '0', walletAmount: '5' }],
  zeroNotInFile: 0,
  itemCount: items,
  correlationId: `corr-${randomUUID()}`,
});

describe('the API login cannot write the evidence tables but through their functions', () => {
  let app: Client;

  beforeAll(async () => {
    await migrateAll(TEST_DATABASE_URL, 'read');
    app = new Client({ connectionString: TEST_SERVICE_DATABASE_URLS.app, application_name: 'evidence-app' });
    await app.connect();
  });
  afterAll(async () => {
    await app?.end();
  });

  it.each([
    ['forge an access-log row', `INSERT INTO query_log (actor_id, actor_role, route, params, status) VALUES ('nobody', 'auditor', 'GET /x', '{}', 200)`],
    ['back-date an access-log row', `INSERT INTO query_log (at, actor_id, actor_role, route, params, status) VALUES (now() - interval '1 day', 'a', 'auditor', 'GET /x', '{}', 200)`],
    ['rewrite the access log', `UPDATE query_log SET actor_id = 'nobody'`],
    ['erase the access log', `DELETE FROM query_log`],
    ['take an access-log id', `SELECT nextval(pg_get_serial_sequence('query_log', 'id'))`],
    [
      'forge a wallet run',
      `INSERT INTO wallet_match_runs (run_id, actor_id, actor_role, format, file_sha256, file_bytes, file_rows, column_map, from_day, to_day, scope_source, totals, summary, zero_not_in_file, item_count)
       VALUES ('${randomUUID()}', 'pm', 'pit-manager', 'csv', 'x', 1, 0, '{}', '2026-12-01', '2026-12-01', 'file', '{}', '[]', 0, 0)`,
    ],
    ['rewrite a wallet run', `UPDATE wallet_match_runs SET summary = '[]'`],
    ['erase the wallet runs', `DELETE FROM wallet_match_runs`],
    ['forge a wallet item', `INSERT INTO wallet_match_items (run_id, seq, status, transaction_id, type, currency, gaming_day, differences) VALUES ('${randomUUID()}', 1, 'MATCHED', 't', 'bet', 'EUR', '2026-12-01', '{}')`],
    ['rewrite a wallet item', `UPDATE wallet_match_items SET wallet_amount = 0`],
    ['move a chain head', `UPDATE evidence_heads SET seq = 0`],
  ])('%s: refused (42501)', async (_what, sql) => {
    expect(await attempt(app, sql)).toMatch(REFUSED);
  });

  it('appends through the functions: seq and time stamped by the database, the items of a recorded run sealed', async () => {
    await app.query('BEGIN');
    try {
      await recordQueryLog(app, { actorId: 'aud-evidence', actorRole: 'auditor', route: 'GET /audit/access-log', params: '{"limit":"1"}', resultCount: 1, correlationId: null });
      await recordQueryLog(app, { actorId: 'aud-evidence', actorRole: 'auditor', route: 'GET /audit/access-log', params: '{"limit":"2"}', resultCount: 2, correlationId: null });
      const two = (await app.query(`SELECT seq::text AS seq, recorded_at, at, prev_hash, hash FROM query_log ORDER BY query_log.seq DESC LIMIT 2`)).rows;
      expect(BigInt(two[0].seq)).toBe(BigInt(two[1].seq) + 1n);
      expect(two[0].prev_hash).toBe(two[1].hash);
      expect(two[0].recorded_at.getTime()).toBeGreaterThanOrEqual(two[1].recorded_at.getTime());
      expect(two[0].at.getTime()).toBe(two[0].recorded_at.getTime());
      const runId = randomUUID();
      await app.query(`SELECT ledger_add_wallet_items($1::uuid, $2::json)`, [runId, JSON.stringify([item(1, 5)])]);
      await app.query(`SELECT ledger_record_wallet_run($1::jsonb)`, [JSON.stringify(run(runId, 1))]);
      await app.query('SAVEPOINT sealed');
      await expect(app.query(`SELECT ledger_add_wallet_items($1::uuid, $2::json)`, [runId, JSON.stringify([item(2, 7)])])).rejects.toMatchObject({ code: 'LA001' });
      await app.query('ROLLBACK TO SAVEPOINT sealed');
      await expect(app.query(`SELECT ledger_record_wallet_run($1::jsonb)`, [JSON.stringify(run(randomUUID(), 2))])).rejects.toMatchObject({ code: '23514' });
    } finally {
      await app.query('ROLLBACK');
    }
  });
});

describe('verify names each forgery of the owner, by its own kind', () => {
  let owner: Client;
  let app: Client;
  let access: { id: string; seq: string }[];
  let runs: { runId: string; seq: string }[];

  beforeAll(async () => {
    await migrateAll(TEST_DATABASE_URL, 'read');
    app = new Client({ connectionString: TEST_SERVICE_DATABASE_URLS.app, application_name: 'evidence-app' });
    await app.connect();
    owner = new Client({ connectionString: TEST_DATABASE_URL, application_name: 'evidence-owner' });
    await owner.connect();
    // the genuine evidence, written the API's way: four audited reads and three wallet runs of two items
    for (let i = 0; i < 4; i++) {
      await recordQueryLog(app, { actorId: `aud-${i}`, actorRole: 'auditor', route: 'GET /settlements', params: JSON.stringify({ i: String(i), note: 'é€😀' }), resultCount: i, correlationId: `corr-${i}` });
    }
    for (let i = 0; i < 3; i++) {
      const runId = randomUUID();
      await app.query('BEGIN');
      const differs = { ...item(2, 7), status: 'FIELDS_DIFFER', wallet_amount: '7', ledger_amount: '7', differences: 'roundId', wallet_values: { roundId: 'r-é€😀' } };
      await app.query(`SELECT ledger_add_wallet_items($1::uuid, $2::json)`, [runId, JSON.stringify([item(1, 5 + i), differs])]);
      await app.query(`SELECT ledger_record_wallet_run($1::jsonb)`, [JSON.stringify(run(runId, 2))]);
      await app.query('COMMIT');
    }
    access = (await owner.query(`SELECT id::text AS id, seq::text AS seq FROM query_log ORDER BY query_log.seq DESC LIMIT 4`)).rows.reverse();
    runs = (await owner.query(`SELECT run_id::text AS "runId", seq::text AS seq FROM wallet_match_runs ORDER BY wallet_match_runs.seq DESC LIMIT 3`)).rows.reverse();
  });
  afterAll(async () => {
    await app?.end();
    await owner?.end();
  });

  type Found = { kind: DivergenceKind; streamId: string | null; version: number | null; eventId: string | null };
  /** Every evidence divergence verify reports with `forge` applied (then rolled back); against `anchors` when given. */
  const reported = async (anchors: { file: string; keys: Map<string, KeyObject> } | null, forge: string[]): Promise<Found[]> => {
    await owner.query('BEGIN');
    try {
      for (const sql of forge) await owner.query(sql);
      const report = await verifyLedger({
        session: insideTransaction(owner),
        publicKeys: anchors?.keys ?? new Map(),
        anchorFile: anchors?.file ?? null,
        kafka: null,
        anchorsTopic: null,
        eventsTopic: null,
        maxDivergences: 100_000,
      });
      return report.divergences.filter((d) => d.source === 'evidence').map((d) => ({ kind: d.kind, streamId: d.streamId, version: d.version, eventId: d.eventId }));
    } finally {
      await owner.query('ROLLBACK');
    }
  };
  const key = (d: Found) => `${d.kind} ${d.streamId} ${d.version} ${d.eventId}`;
  /**
   * What `forge` adds to the report: the shared test database may hold other specs' evidence forgeries
   * (test/attack/wallet-upload-bounds.e2e.spec.ts back-dates runs), which verify names before and after.
   */
  const verifiedWith = async (anchors: { file: string; keys: Map<string, KeyObject> } | null, forge: string[]): Promise<Found[]> => {
    const before = new Set((await reported(anchors, [])).map(key));
    return (await reported(anchors, forge)).filter((d) => !before.has(key(d)));
  };
  const found = (...forge: string[]) => verifiedWith(null, forge);
  const kinds = (list: { kind: DivergenceKind }[]) => [...new Set(list.map((d) => d.kind))];

  it('the chains as the functions wrote them: nothing to name about these rows', async () => {
    const mine = new Set([...access.map((a) => a.id), ...runs.map((r) => r.runId)]);
    const all = await reported(null, []);
    expect(all.filter((d) => d.eventId !== null && mine.has(d.eventId))).toEqual([]);
    expect(all.filter((d) => d.eventId === null)).toEqual([]);
  });

  describe('the access log', () => {
    const off = `ALTER TABLE query_log DISABLE TRIGGER query_log_no_change`;

    it('a row altered: ACCESS_LOG_ROW_ALTERED naming it', async () => {
      const d = await found(off, `UPDATE query_log SET actor_id = 'someone-else' WHERE id = ${access[1].id}`);
      expect(d).toEqual([{ kind: 'ACCESS_LOG_ROW_ALTERED', streamId: 'query_log', version: Number(access[1].seq), eventId: access[1].id }]);
    });

    it('a row removed: ACCESS_LOG_ROW_REMOVED at the row after it', async () => {
      const d = await found(off, `DELETE FROM query_log WHERE id = ${access[1].id}`);
      expect(d).toEqual([{ kind: 'ACCESS_LOG_ROW_REMOVED', streamId: 'query_log', version: Number(access[2].seq), eventId: access[2].id }]);
    });

    it('the last row removed (and the head left): ACCESS_LOG_ROW_REMOVED', async () => {
      const d = await found(off, `DELETE FROM query_log WHERE id = ${access[3].id}`);
      expect(kinds(d)).toEqual(['ACCESS_LOG_ROW_REMOVED']);
    });

    it('a row back-dated at the end, with a correct hash and head: ACCESS_LOG_ROW_BACKDATED naming it', async () => {
      const d = await found(`DO $$
        DECLARE h evidence_heads; r query_log;
        BEGIN
          SELECT * INTO h FROM evidence_heads WHERE chain = 'query_log';
          SELECT * INTO r FROM query_log WHERE seq = h.seq;
          r.id := nextval(pg_get_serial_sequence('query_log', 'id')); r.seq := h.seq + 1;
          r.recorded_at := h.recorded_at - interval '1 day'; r.at := r.recorded_at; r.actor_id := 'aud-who-never-looked'; r.prev_hash := h.hash;
          r.hash := ledger_evidence_hash('query_log/1', r.prev_hash, ledger_query_log_fields(r));
          INSERT INTO query_log SELECT (r).*;
          UPDATE evidence_heads SET seq = r.seq, hash = r.hash WHERE chain = 'query_log';
        END $$`);
      expect(d).toEqual([expect.objectContaining({ kind: 'ACCESS_LOG_ROW_BACKDATED', version: Number(access[3].seq) + 1 })]);
    });

    it('two rows swapped, each re-hashed on its own: ACCESS_LOG_ROW_REORDERED', async () => {
      const [a, b] = [access[1], access[2]];
      const d = await found(
        off,
        `UPDATE query_log SET seq = -seq WHERE id IN (${a.id}, ${b.id})`,
        `UPDATE query_log q SET seq = CASE WHEN q.id = ${a.id} THEN ${b.seq} ELSE ${a.seq} END,
                recorded_at = (SELECT o.recorded_at FROM query_log o WHERE o.id = CASE WHEN q.id = ${a.id} THEN ${b.id} ELSE ${a.id} END),
                at = (SELECT o.at FROM query_log o WHERE o.id = CASE WHEN q.id = ${a.id} THEN ${b.id} ELSE ${a.id} END)
          WHERE q.id IN (${a.id}, ${b.id})`,
        `UPDATE query_log q SET hash = ledger_evidence_hash('query_log/1', q.prev_hash, ledger_query_log_fields(q)) WHERE q.id IN (${a.id}, ${b.id})`,
      );
      expect(kinds(d)).toEqual(['ACCESS_LOG_ROW_REORDERED']);
    });
  });

  describe('the wallet runs', () => {
    const off = [`ALTER TABLE wallet_match_runs DISABLE TRIGGER wallet_match_runs_no_change`, `ALTER TABLE wallet_match_items DISABLE TRIGGER wallet_match_items_no_change`];

    it('a run altered: WALLET_RUN_ALTERED naming it', async () => {
      const d = await found(...off, `UPDATE wallet_match_runs SET summary = '[]' WHERE run_id = '${runs[1].runId}'`);
      expect(d).toEqual([{ kind: 'WALLET_RUN_ALTERED', streamId: 'wallet_match_runs', version: Number(runs[1].seq), eventId: runs[1].runId }]);
    });

    it('a run removed with its items: WALLET_RUN_REMOVED at the run after it', async () => {
      const d = await found(...off, `DELETE FROM wallet_match_items WHERE run_id = '${runs[1].runId}'`, `DELETE FROM wallet_match_runs WHERE run_id = '${runs[1].runId}'`);
      expect(d).toEqual([{ kind: 'WALLET_RUN_REMOVED', streamId: 'wallet_match_runs', version: Number(runs[2].seq), eventId: runs[2].runId }]);
    });

    it('a run back-dated at the end, with a correct hash and head: WALLET_RUN_BACKDATED naming it', async () => {
      const forged = randomUUID();
      const d = await found(`DO $$
        DECLARE h evidence_heads; r wallet_match_runs;
        BEGIN
          SELECT * INTO h FROM evidence_heads WHERE chain = 'wallet_match_runs';
          SELECT * INTO r FROM wallet_match_runs WHERE seq = h.seq;
          r.run_id := '${forged}'; r.seq := h.seq + 1; r.item_count := 0; r.items_sha256 := ledger_wallet_items_digest(r.run_id);
          r.recorded_at := h.recorded_at - interval '1 day'; r.created_at := r.recorded_at; r.prev_hash := h.hash;
          r.hash := ledger_evidence_hash('wallet_match_runs/1', r.prev_hash, ledger_wallet_run_fields(r));
          INSERT INTO wallet_match_runs SELECT (r).*;
          UPDATE evidence_heads SET seq = r.seq, hash = r.hash WHERE chain = 'wallet_match_runs';
        END $$`);
      expect(d).toEqual([{ kind: 'WALLET_RUN_BACKDATED', streamId: 'wallet_match_runs', version: Number(runs[2].seq) + 1, eventId: forged }]);
    });

    it("a run's item altered: WALLET_RUN_ITEMS_ALTERED naming the run", async () => {
      const d = await found(...off, `UPDATE wallet_match_items SET wallet_amount = 0 WHERE run_id = '${runs[0].runId}' AND seq = 2`);
      expect(d).toEqual([{ kind: 'WALLET_RUN_ITEMS_ALTERED', streamId: 'wallet_match_runs', version: Number(runs[0].seq), eventId: runs[0].runId }]);
    });

    it.each([
      ["the wallet's value rewritten", `wallet_values = '{"roundId": "r-1"}'`],
      ["the wallet's values cleared, as if stored before they were kept", 'wallet_values = NULL'],
    ])('%s: WALLET_RUN_ITEMS_ALTERED naming the run', async (_what, set) => {
      const d = await found(...off, `UPDATE wallet_match_items SET ${set} WHERE run_id = '${runs[1].runId}' AND seq = 2`);
      expect(d).toEqual([{ kind: 'WALLET_RUN_ITEMS_ALTERED', streamId: 'wallet_match_runs', version: Number(runs[1].seq), eventId: runs[1].runId }]);
    });

    it("the items' digest of the database and of verify agree, for items with wallet values and without (stored before they were kept)", async () => {
      const both = async (): Promise<[string, string]> => {
        const [db] = (await owner.query(`SELECT ledger_wallet_items_digest($1::uuid) AS d`, [runs[2].runId])).rows;
        const d = new ItemsDigest();
        const rows = (await owner.query(`SELECT ${WALLET_ITEM_TAG_FIELD} AS tag, ${WALLET_ITEM_FIELDS} AS fields FROM wallet_match_items WHERE run_id = $1 ORDER BY seq`, [runs[2].runId])).rows;
        for (const r of rows) d.add(r.fields, r.tag);
        return [db.d, d.hex()];
      };
      const [withValues, mine] = await both();
      expect(mine).toBe(withValues);
      await owner.query('BEGIN');
      try {
        for (const sql of off) await owner.query(sql);
        await owner.query(`UPDATE wallet_match_items SET wallet_values = NULL WHERE run_id = $1`, [runs[2].runId]);
        const [without, mineWithout] = await both();
        expect(mineWithout).toBe(without);
        expect(without).not.toBe(withValues);
      } finally {
        await owner.query('ROLLBACK');
      }
    });
  });

  describe('the signed checkpoints', () => {
    let dir: string;
    let anchors: { file: string; keys: Map<string, KeyObject> };

    beforeAll(async () => {
      // the heads as the relay's anchor publisher collects them, in a checkpoint signed with a key of the spec's own
      const broken: BrokenEvidence[] = [];
      const heads = await collectEvidenceHeads({ session: pgSession(owner), signed: () => undefined, onBroken: (b) => broken.push(b) });
      expect(broken).toEqual([]);
      expect(heads).toEqual([
        { streamId: 'evidence:query_log', version: Number(access[3].seq), headHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
        { streamId: 'evidence:wallet_match_runs', version: Number(runs[2].seq), headHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      ]);
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const keyId = publicKeyId(privateKey);
      const checkpoint = buildCheckpoint({
        ledgerId: await databaseLedgerId(pgSession(owner)),
        seq: 1,
        createdAt: new Date(),
        globalPosition: '0',
        streams: heads,
        previousAnchorHash: GENESIS_ANCHOR_HASH,
        keyId,
      });
      dir = mkdtempSync(join(tmpdir(), 'evidence-anchors-'));
      anchors = { file: join(dir, 'anchors.jsonl'), keys: new Map([[keyId, publicKey]]) };
      writeFileSync(anchors.file, `${anchorText(signCheckpoint(checkpoint, privateKey))}\n`);
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('the chains as signed: nothing to name', async () => {
      // beyond what verify names without them (another spec's forgeries), the signed heads add nothing
      const without = new Set((await reported(null, [])).map(key));
      expect((await reported(anchors, [])).filter((d) => !without.has(key(d)))).toEqual([]);
    });

    it('a row rewritten with every later hash and the head: a chain consistent in itself, named only through the signed head', async () => {
      const rewrite = [
        `ALTER TABLE query_log DISABLE TRIGGER query_log_no_change`,
        `DO $$
         DECLARE r query_log; v_prev text;
         BEGIN
           FOR r IN SELECT * FROM query_log WHERE seq >= ${access[1].seq} ORDER BY seq LOOP
             IF r.id = ${access[1].id} THEN r.actor_id := 'someone-else'; END IF;
             IF v_prev IS NOT NULL THEN r.prev_hash := v_prev; END IF;
             r.hash := ledger_evidence_hash('query_log/1', r.prev_hash, ledger_query_log_fields(r));
             UPDATE query_log SET actor_id = r.actor_id, prev_hash = r.prev_hash, hash = r.hash WHERE id = r.id;
             v_prev := r.hash;
           END LOOP;
           UPDATE evidence_heads SET hash = v_prev WHERE chain = 'query_log';
         END $$`,
      ];
      expect(await verifiedWith(null, rewrite)).toEqual([]);
      expect(await verifiedWith(anchors, rewrite)).toEqual([{ kind: 'ACCESS_LOG_HEAD_MISMATCH', streamId: 'query_log', version: Number(access[3].seq), eventId: access[3].id }]);
    });

    it('the last run removed with the head moved back: WALLET_RUN_REMOVED through the signed head', async () => {
      const last = runs[2];
      const d = await verifiedWith(anchors, [
        `ALTER TABLE wallet_match_runs DISABLE TRIGGER wallet_match_runs_no_change`,
        `ALTER TABLE wallet_match_items DISABLE TRIGGER wallet_match_items_no_change`,
        `DELETE FROM wallet_match_items WHERE run_id = '${last.runId}'`,
        `DELETE FROM wallet_match_runs WHERE run_id = '${last.runId}'`,
        `UPDATE evidence_heads SET seq = ${runs[1].seq}, hash = (SELECT hash FROM wallet_match_runs WHERE run_id = '${runs[1].runId}') WHERE chain = 'wallet_match_runs'`,
      ]);
      expect(d).toEqual([{ kind: 'WALLET_RUN_REMOVED', streamId: 'wallet_match_runs', version: Number(last.seq), eventId: null }]);
    });
  });
});
