import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ledger_references`: round ids and bet ids are unique across the whole ledger, not only within a
 * shoe. They are the references the wallet, the betting platform and the regulator use for a game
 * and a wager, and the read model keys rounds and bets by them; a round id reused in another shoe
 * would make two games answer to one reference. The append that records a RoundOpened or BetPlaced
 * reserves its id here in the same transaction; another stream holding it refuses the append.
 *
 * Irreversible on purpose: `down` refuses.
 */
export class CreateReferences1795950000003 implements MigrationInterface {
  name = 'CreateReferences1795950000003';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ledger_references (
        kind      text NOT NULL CHECK (kind IN ('ROUND', 'BET')),
        ref_id    text NOT NULL,
        stream_id text NOT NULL,
        PRIMARY KEY (kind, ref_id)
      )`);
  }

  public async down(): Promise<void> {
    throw new Error('ledger_references guards the uniqueness of recorded ids: it is never dropped');
  }
}
