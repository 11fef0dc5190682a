import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { KeyObject } from 'node:crypto';
import { PgEventStore } from '@ledger/event-store';
import type { LedgerApiEnv } from '@ledger/config';
import type { ReadModel } from '@ledger/read-model';
import { anchorVerifySettings, readPublicKeys, streamAnchorStatus, type StreamAnchorStatus } from '@ledger/anchors';
import { ApiError } from '../kernel/api-error';
import { camel } from '../kernel/camel';
import { HEAVY_READ_STORE, READ_MODEL } from '../kernel/tokens';
import { withBetTransaction, withWalletTransactions } from '../kernel/as-of/wallet-transactions';
import { decisionChains, evidenceView } from './recall-chains';
import { VerifiedHeads } from './verified-heads';

/**
 * The game recall of a round (docs/guarantees.md §8), read through the read model (`READ_MODEL`)
 * and the event store: the round, its revisions, events, decisions and bets shaped into the API's
 * answer (camelCase, wallet transaction ids), with the shoe's chain and anchor status. Amounts are
 * strings of minor units; nothing passes through floating point.
 */
@Injectable()
export class RecallService {
  constructor(
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    @Inject(HEAVY_READ_STORE) private readonly store: PgEventStore,
    private readonly heads: VerifiedHeads,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    const anchors = anchorVerifySettings({
      ANCHOR_FILE: config.get('ANCHOR_FILE', { infer: true }),
      ANCHOR_PUBLIC_KEY_FILE: config.get('ANCHOR_PUBLIC_KEY_FILE', { infer: true }),
      ANCHOR_TOPIC: config.get('ANCHOR_TOPIC', { infer: true }),
      LEDGER_EVENTS_TOPIC: config.get('LEDGER_EVENTS_TOPIC', { infer: true }),
      LEDGER_ID: config.get('LEDGER_ID', { infer: true }),
    });
    this.anchorFile = anchors.anchorFile;
    this.publicKeyFiles = anchors.publicKeyFiles;
  }

  private readonly anchorFile: string;
  private readonly publicKeyFiles: readonly string[];

  /**
   * The anchor status of a shoe's stream ({@link streamAnchorStatus}, docs/anchors.md): the latest
   * signed checkpoint of `ANCHOR_FILE` naming it, checked against `ANCHOR_PUBLIC_KEY_FILE` (read at
   * each call, like the full verification) and the event store's hash at the anchored version.
   */
  async anchorStatus(streamId: string): Promise<StreamAnchorStatus> {
    let keys: Map<string, KeyObject>;
    try {
      keys = readPublicKeys(this.publicKeyFiles);
    } catch {
      keys = new Map();
    }
    return streamAnchorStatus({
      file: this.anchorFile,
      publicKeys: keys,
      streamId,
      hashAt: async (version) => (await this.store.readStream(streamId, version, 1))[0]?.hash ?? null,
    });
  }

  /**
   * Game recall of one round: the round as it stands, every revision (resulted, corrected, voided)
   * with actor, approver and reason, its events in original order, its bets with their
   * settlement history, and the shoe's hash-chain status: verified from the stream's last verified
   * head ({@link VerifiedHeads}; `chain.verifiedFrom` the version it started after, 0 for the whole
   * stream; `chain.headVersion` where it ended). docs/guarantees.md §8 says what that proves.
   * @throws ApiError 404 `ROUND.NOT_FOUND`
   */
  async recall(shoeId: string, roundId: string) {
    const rm = this.readModel;
    const round = await rm.outcomes.round(shoeId, roundId);
    if (!round) throw new ApiError('ROUND.NOT_FOUND', `no round ${roundId} in shoe ${shoeId} (or not projected yet)`);
    const revisions = await rm.outcomes.revisions(roundId);
    const events = await rm.audit.ofRound(shoeId, roundId);
    const bets = await rm.settlements.ofRound(roundId);
    const betRevisions = await rm.settlements.historyOfRound(roundId);
    const chain = await this.heads.verify(this.store, `shoe-${shoeId}`);
    const anchor = await this.anchorStatus(`shoe-${shoeId}`);
    const byBet = new Map<string, unknown[]>();
    for (const r of betRevisions) byBet.set(r.bet_id, [...(byBet.get(r.bet_id) ?? []), camel(r)]);
    return {
      round: camel(round),
      revisions: revisions.map((r) => camel(r)),
      events: events.map((e) => ({ ...camel(e), evidence: evidenceView(evidenceOf(e.data)) })),
      decisions: decisionChains(events),
      bets: bets.map((b) => ({
        ...withBetTransaction(camel(b)),
        history: withWalletTransactions(b.bet_id, b.stake, (byBet.get(b.bet_id) ?? []) as { kind: string; revision: number; payout: string | null }[]),
      })),
      chain: { ok: chain.ok, eventsChecked: chain.eventsChecked, problems: chain.problems, verifiedFrom: chain.verifiedFrom, headVersion: chain.head.version },
      anchor,
    };
  }
}

/** The evidence an event's data carries: its own, or its decision's. */
function evidenceOf(data: Record<string, unknown> | null | undefined): unknown {
  const d = data as { evidence?: unknown; decision?: { evidence?: unknown } | null } | null | undefined;
  return d?.evidence ?? d?.decision?.evidence;
}
