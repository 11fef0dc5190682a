import type { Divergence, VerificationReport } from './report';

/**
 * The verification report as text for a terminal (`npm run -s verify` without `--json`): the
 * summary line, the first divergence, then up to `limit` more.
 */
export function formatReport(r: VerificationReport, limit = 20): string {
  const lines: string[] = [];
  const last = r.lastAnchor ? `last #${r.lastAnchor.seq} at position ${r.lastAnchor.globalPosition}, ${r.lastAnchor.createdAt}` : 'none';
  const kafka = r.kafkaRecordsChecked === null ? 'Kafka copy not checked' : `${r.kafkaRecordsChecked} Kafka records checked`;
  lines.push(`ledger ${r.ledgerId}: anchors checked ${r.anchorsChecked} (${last}); streams checked ${r.streamsChecked}; events checked ${r.eventsChecked}; ${kafka}`);
  if (r.pendingOnKafka > 0) lines.push(`${r.pendingOnKafka} recent events not on Kafka yet (within the grace period)`);
  const sc = r.significantCauses;
  lines.push(
    sc.monitoredFrom === null
      ? 'significant events: completeness not checked (no configuration attestation says the monitor ran)'
      : `significant events: ${sc.checked} raises owed by causes from position ${sc.monitoredFrom} looked for` + (sc.pending > 0 ? `; ${sc.pending} recent causes not yet (within the grace period)` : ''),
  );
  if (r.otherLedgerAnchors > 0) lines.push(`${r.otherLedgerAnchors} anchors or records of other ledgers skipped`);
  if (r.ok) {
    lines.push('divergences 0: PostgreSQL is consistent with the signed anchors' + (r.kafkaRecordsChecked === null ? '' : ' and the Kafka copy'));
    return lines.join('\n');
  }
  lines.push(`divergences ${r.divergenceCount}`);
  lines.push(`FIRST: ${describe(r.firstDivergence!)}`);
  for (const d of r.divergences.slice(1, limit)) lines.push(`  ${describe(d)}`);
  if (r.divergenceCount > limit) lines.push(`  … ${r.divergenceCount - limit} more (--json lists up to the cap)`);
  return lines.join('\n');
}

function describe(d: Divergence): string {
  // an evidence chain's row (docs/anchors.md "The evidence chains"): the chain, the row's seq and its id
  const [stream, version, event] = d.source === 'evidence' ? ['chain', 'seq', 'row'] : ['stream', 'version', 'event'];
  const where = [
    d.streamId !== null ? `${stream} ${d.streamId}` : null,
    d.version !== null ? `${version} ${d.version}` : null,
    d.eventId !== null ? `${event} ${d.eventId}` : null,
    d.globalPosition !== null ? `position ${d.globalPosition}` : null,
    d.anchorSeq !== null ? `anchor #${d.anchorSeq}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return `[${d.source}] ${d.kind}${where ? ` (${where})` : ''}: ${d.reason}`;
}
