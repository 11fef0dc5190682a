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
  lines.push(...significantCausesText(r.significantCauses));
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

/** The completeness of the significant events as lines: what was looked for, and what was not. */
function significantCausesText(sc: VerificationReport['significantCauses']): string[] {
  if (sc.monitoredFrom === null) return ['significant events: completeness not checked (no configuration attestation says the monitor ran)'];
  const lines = [`significant events: ${sc.checked} raises owed by causes from position ${sc.monitoredFrom} looked for` + (sc.fairness ? '' : " (a shoe's close's fairness alerts not: no gaming-day rule)")];
  const off = sc.unmonitored.map((u) => `${u.from}..${u.to ?? 'end'}`).join(', ');
  if (off) lines.push(`  not looked for where an attestation said the monitor was off: positions ${off}`);
  if (sc.pending > 0) lines.push(`  ${sc.pending} causes recorded within the grace period of now: not yet`);
  if (sc.malformed > 0) lines.push(`  ${sc.malformed} malformed causes (data no rule of the ledger writes): raise nothing`);
  if (sc.unattestedLedger > 0) lines.push(`  ${sc.unattestedLedger} causes of a ledger (outbox topic) no attestation covers: not looked at`);
  return lines;
}
