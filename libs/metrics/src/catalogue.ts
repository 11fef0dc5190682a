/**
 * The metric catalogue (docs/architecture.md §8): every metric the three services (API `ledger`,
 * `relay`, `projector`) export, with its type, label names and help. Code registers a metric through
 * {@link defineMetric} with a catalogue key, so a name cannot drift from what the dashboard
 * (docker/grafana/ledger-dashboard.json), the alert rules (docker/prometheus/alerts.yml) and the
 * operations table (docs/architecture.md §8) name; the tests check those files against it.
 *
 * Labels never carry money, ids or payloads (docs/domain-rules.md §4): only route templates, status
 * codes, error codes, topic/partition and fixed kinds — save the device clock metrics, whose
 * `device_id` and `table_id` name members of bounded sets (the configured tables, the devices a
 * table's tokens name): such a metric declares `maxSeries`, and the code exporting it keeps no more
 * series than that (docs/architecture.md §9, "Time the ledger vouches for").
 */

/** One metric of the catalogue. `buckets` (histograms only) are upper bounds in seconds or a count. */
export interface MetricSpec {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly help: string;
  readonly labels: readonly string[];
  /** The services that export it. */
  readonly services: readonly ('ledger' | 'relay' | 'projector')[];
  readonly buckets?: readonly number[];
  /**
   * Only on a metric whose labels name devices or tables (bounded sets, never accounts, bets or
   * payloads): the most series it exports; readings that would add one more are dropped and counted.
   */
  readonly maxSeries?: number;
}

/** Absolute device clock skew, seconds: from 10 ms (request transit) to 10 minutes. */
const SKEW_BUCKETS_S = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 600] as const;

/** Prometheus' standard latency buckets, seconds. */
export const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** Events per append call. */
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500] as const;

/** The catalogue, keyed for code. */
export const METRICS = {
  httpRequests: { name: 'ledger_http_requests_total', type: 'counter', help: 'HTTP requests answered, by method, route template and status code', labels: ['method', 'route', 'status'], services: ['ledger'] },
  httpDuration: {
    name: 'ledger_http_request_duration_seconds',
    type: 'histogram',
    help: 'HTTP request latency from arrival to the end of the response, seconds, by method, route template and status code',
    labels: ['method', 'route', 'status'],
    services: ['ledger'],
    buckets: LATENCY_BUCKETS_S,
  },
  refusals: { name: 'ledger_refusals_total', type: 'counter', help: 'refused requests, by code (reason) and whether the caller had a valid token', labels: ['reason', 'authenticated'], services: ['ledger'] },
  rejectionsDropped: { name: 'ledger_rejections_dropped_total', type: 'counter', help: 'refusals only counted, not stored: the caller spent its rejection-log budget of the minute', labels: ['reason'], services: ['ledger'] },
  heavyReads: { name: 'ledger_heavy_reads_in_flight', type: 'gauge', help: 'heavy reads (chain and anchor verification, recall, exports, staff statistics) holding a slot now', labels: [], services: ['ledger'] },
  heavyReadsCut: {
    name: 'ledger_heavy_reads_cut_total',
    type: 'counter',
    help: 'heavy reads whose answer closed before its end, by reason: aborted (the connection closed first: the client went away, or a failure cut the stream) or stalled (cut by the API: no byte accepted for HEAVY_READ_IDLE_TIMEOUT_MS)',
    labels: ['reason'],
    services: ['ledger'],
  },
  limitsUnavailable: {
    name: 'ledger_limits_unavailable_total',
    type: 'counter',
    help: 'requests refused (503 LIMITS.UNAVAILABLE) or refusals left unstored because the shared limits store (LIMITS_REDIS_URL) did not answer, by limit: rate, heavy-read, live-stream, refusal-log',
    labels: ['limit'],
    services: ['ledger'],
  },
  projectionHalted: { name: 'ledger_projection_halted_partitions', type: 'gauge', help: 'projection partitions halted by an open incident (read from projection_incidents at scrape)', labels: [], services: ['ledger'] },
  appendDuration: {
    name: 'ledger_append_duration_seconds',
    type: 'histogram',
    help: 'event-store append latency (one call: head read, append statement, refusal handling), seconds, by outcome',
    labels: ['outcome'],
    services: ['ledger'],
    buckets: LATENCY_BUCKETS_S,
  },
  appendBatchSize: { name: 'ledger_append_batch_events', type: 'histogram', help: 'events per event-store append call', labels: [], services: ['ledger'], buckets: BATCH_BUCKETS },
  relayLeader: { name: 'ledger_relay_leader', type: 'gauge', help: '1 while this relay holds the lease and publishes, else 0', labels: [], services: ['relay'] },
  outboxUnpublished: { name: 'ledger_outbox_unpublished_rows', type: 'gauge', help: 'outbox rows not yet published to Kafka (all relays); -1 when the count failed', labels: [], services: ['relay'] },
  outboxOldestAge: { name: 'ledger_outbox_oldest_unpublished_age_seconds', type: 'gauge', help: 'age of the oldest unpublished outbox row, seconds (0 when none); -1 when the read failed', labels: [], services: ['relay'] },
  outboxPublished: { name: 'ledger_outbox_published_total', type: 'counter', help: 'outbox rows published to Kafka by this process', labels: [], services: ['relay', 'projector'] },
  outboxPruned: { name: 'ledger_outbox_pruned_total', type: 'counter', help: 'published outbox rows deleted after their retention by this process', labels: [], services: ['relay', 'projector'] },
  projectorHalted: { name: 'ledger_projector_halted_partitions', type: 'gauge', help: 'partitions this projector process holds halted (open incidents)', labels: [], services: ['projector'] },
  projectionHalts: { name: 'ledger_projection_halts_total', type: 'counter', help: 'partitions this projector process halted (a projection incident opened), by error code', labels: ['code'], services: ['projector'] },
  projectorLag: {
    name: 'ledger_projector_lag_records',
    type: 'gauge',
    help: 'records of the events topic not yet applied, per assigned partition: high watermark minus the next offset to apply (read at scrape; absent before the first applied batch or when the offsets read failed)',
    labels: ['topic', 'partition'],
    services: ['projector'],
  },
  projectorApplyDuration: {
    name: 'ledger_projector_apply_duration_seconds',
    type: 'histogram',
    help: 'projector apply latency of one committed read-model transaction (a chunk of one Kafka batch), seconds',
    labels: [],
    services: ['projector'],
    buckets: LATENCY_BUCKETS_S,
  },
  projectorApplied: { name: 'ledger_projector_applied_events_total', type: 'counter', help: 'events this projector process applied to the read model (committed)', labels: [], services: ['projector'] },
  projectorQuarantined: {
    name: 'ledger_projector_quarantined_records_total',
    type: 'counter',
    help: 'records this projector process quarantined (never applied), by quarantine reason',
    labels: ['reason'],
    services: ['projector'],
  },
  syncCommitStalled: {
    name: 'ledger_sync_commit_stalled',
    type: 'gauge',
    help: '1 while the last readiness probe found that a commit did not come back within READY_SYNC_COMMIT_TIMEOUT_MS (a synchronous standby that does not confirm: every write waits), 0 when it came back; set at each GET /health/ready',
    labels: [],
    services: ['ledger'],
  },
  syncCommitSeconds: {
    name: 'ledger_sync_commit_probe_seconds',
    type: 'gauge',
    help: 'how long the last readiness probe waited for its commit, seconds (the bound when it did not come back); set at each GET /health/ready',
    labels: [],
    services: ['ledger'],
  },
  relayPublishBatches: { name: 'ledger_relay_publish_batches_total', type: 'counter', help: 'outbox batches this relay published to Kafka (one transactional send each)', labels: [], services: ['relay'] },
  verifications: {
    name: 'ledger_verifications_total',
    type: 'counter',
    help: 'chain and anchor verifications the API ran, by kind (chain, anchor, stream_anchor) and result (ok, mismatch, error)',
    labels: ['kind', 'result'],
    services: ['ledger'],
  },
  lastAnchorSigned: {
    name: 'ledger_anchor_last_signed_timestamp_seconds',
    type: 'gauge',
    help: 'unix time (seconds) of the last signed checkpoint (anchor) this process wrote; absent before the first',
    labels: [],
    services: ['projector'],
  },
  deviceClockSkew: {
    name: 'ledger_device_clock_skew_seconds',
    type: 'gauge',
    help: "a device's clock skew at its last event: occurredAt − recordedAt (the ledger's clock), seconds, signed (positive: the device is ahead); table devices and betting platforms that give occurredAt, by device and table",
    labels: ['device_id', 'table_id'],
    services: ['ledger'],
    maxSeries: 512,
  },
  deviceClockSkewAbs: {
    name: 'ledger_device_clock_skew_abs_seconds',
    type: 'histogram',
    help: 'the absolute clock skew of every append a table device or betting platform made with an occurredAt (|occurredAt − recordedAt|), seconds, by table',
    labels: ['table_id'],
    services: ['ledger'],
    buckets: SKEW_BUCKETS_S,
    maxSeries: 64,
  },
  deviceClockSeriesDropped: {
    name: 'ledger_device_clock_skew_series_dropped_total',
    type: 'counter',
    help: 'device clock readings not exported because ledger_device_clock_skew_seconds already holds its maxSeries (device, table) pairs',
    labels: [],
    services: ['ledger'],
  },
  clockAttested: {
    name: 'ledger_clock_last_attested_timestamp_seconds',
    type: 'gauge',
    help: 'unix time (seconds, the ledger clock) of the last ClockAttested event this API appended; absent before the first',
    labels: [],
    services: ['ledger'],
  },
  clockDatabaseOffset: {
    name: 'ledger_clock_database_offset_seconds',
    type: 'gauge',
    help: "the database clock minus the API's clock at the last clock attestation, seconds, signed",
    labels: [],
    services: ['ledger'],
  },
  significantRaised: {
    name: 'ledger_significant_events_raised_total',
    type: 'counter',
    help: 'significant events the monitor raised (SignificantEventRaised appended), by catalogue code and severity (docs/significant-events.md)',
    labels: ['code', 'severity'],
    services: ['ledger'],
  },
  significantRaiseLag: {
    name: 'ledger_significant_event_raise_lag_seconds',
    type: 'histogram',
    help: "seconds from the cause event's recordedAt to its SignificantEventRaised appended (the monitor's lag behind the ledger)",
    labels: [],
    services: ['ledger'],
    buckets: LATENCY_BUCKETS_S,
  },
  significantCausesCoalesced: {
    name: 'ledger_significant_event_causes_coalesced_total',
    type: 'counter',
    help: 'causes (refusals, a device\'s skewed facts) folded into the one raise of their (code, device or caller, window) beyond its first (docs/significant-events.md, "Floods are bounded")',
    labels: ['code'],
    services: ['ledger'],
  },
  significantMonitorUp: {
    name: 'ledger_significant_monitor_up',
    type: 'gauge',
    help: "1 while this API's significant-event monitor consumes the ledger topic (SIGNIFICANT_MONITOR true); 0 when it is configured on but does not: it failed to start, or crashed for good (docs/significant-events.md); absent when the monitor is off",
    labels: [],
    services: ['ledger'],
  },
  significantRaiseConflicts: {
    name: 'ledger_significant_raise_conflicts_total',
    type: 'counter',
    help: 'raises refused because their stream or event id held something other than the same raise (a squatted significant-<id> stream, or its id taken by another event): not raised, logged at error (docs/significant-events.md, "What the database refuses")',
    labels: ['code'],
    services: ['ledger'],
  },
  significantMonitorMalformed: {
    name: 'ledger_significant_monitor_malformed_total',
    type: 'counter',
    help: "records of the ledger topic the significant-event monitor passed over because their data is not what their type's schema admits (a malformed event raises nothing; the projector quarantines it): logged once per 10 s at most (docs/significant-events.md)",
    labels: [],
    services: ['ledger'],
  },
  significantCausesDropped: {
    name: 'ledger_significant_event_causes_dropped_total',
    type: 'counter',
    help: 'causes of significant events not raised: the bounded queue of windows full, or the raise failed (logged once per flush)',
    labels: ['code'],
    services: ['ledger'],
  },
  significantUnacknowledged: {
    name: 'ledger_significant_events_unacknowledged',
    type: 'gauge',
    help: 'significant events of severity high or above not acknowledged yet, by severity (read from the event store at scrape, never from the read model)',
    labels: ['severity'],
    services: ['ledger'],
  },
  significantOverdue: {
    name: 'ledger_significant_events_overdue',
    type: 'gauge',
    help: 'significant events of severity high or above not acknowledged SIGNIFICANT_ACK_DEADLINE_SECONDS after they were raised, by severity (read from the event store at scrape)',
    labels: ['severity'],
    services: ['ledger'],
  },
  significantReadModelMismatches: {
    name: 'ledger_significant_read_model_mismatches_total',
    type: 'counter',
    help: "rows of the significant-events read model the event store contradicts when served (kind: not-raised, acknowledgement; the events' version is served), and stored raises or acknowledgements whose data their schema refuses, passed over (kind: malformed) (docs/significant-events.md)",
    labels: ['kind'],
    services: ['ledger'],
  },
} as const satisfies Record<string, MetricSpec>;

/** A catalogue key. */
export type MetricKey = keyof typeof METRICS;

/** Node process metrics every service exports (prom-client defaults with the `ledger_process_` prefix). */
export const PROCESS_METRIC_PREFIX = 'ledger_process_';

/** Every metric name of the catalogue. */
export function catalogueNames(): string[] {
  return Object.values(METRICS).map((m) => m.name);
}

/**
 * Whether `name` is a series name of the catalogue: a metric name, a histogram's `_bucket`/`_sum`/
 * `_count`, or a process metric (`ledger_process_*`).
 */
export function inCatalogue(name: string): boolean {
  if (name.startsWith(PROCESS_METRIC_PREFIX)) return true;
  return Object.values(METRICS).some((m: MetricSpec) => m.name === name || (m.type === 'histogram' && ['_bucket', '_sum', '_count'].some((s) => name === m.name + s)));
}

/** The catalogue as a Markdown table (docs/architecture.md §8 is generated from it). */
export function catalogueMarkdown(): string {
  const rows = Object.values(METRICS).map((m: MetricSpec) => `| \`${m.name}\` | ${m.type} | ${m.labels.map((l) => `\`${l}\``).join(', ') || '—'} | ${m.services.join(', ')} | ${m.help} |`);
  return ['| Metric | Type | Labels | Services | Help |', '|---|---|---|---|---|', ...rows].join('\n');
}
