/**
 * The bad day "a projector that halts stays quiet" (docs/guarantees.md §6): an event the projections
 * cannot apply used to stop the consumer (after the client's retries the process exited) with only
 * a log line to say so. Now it halts THAT partition: an incident row, `GET /projections/status` and
 * `GET /health` show it, `ledger_projection_halts_total{code}` counts it, the gauge
 * `ledger_projection_halted_partitions` reads it, the other partitions keep projecting and the
 * runner does not fail. Resolving the incident (`projections:resume`) retries the partition; the
 * same poison event halts it again, with a new incident.
 *
 * Real PostgreSQL and Kafka; the API in-process (the harness), the projector in-process as
 * `ledger_projector` with a 1 s incident poll.
 */
import type { LedgerEvent } from '@ledger/events';
import type { KafkaProducer } from '@ledger/kafka';
import { metricValue } from '@ledger/metrics';
import { createProjectionDataSource, openIncidents, ProjectionRunner, resumePartitions, type ProjectionIncident, type ProjectionStatus } from '@ledger/projections';
import { idFactory, StreamBuilder } from '../../libs/projections/src/testing/envelopes';
import { highWatermarks, produce, storedCheckpoints } from '../../libs/projections/src/testing/kafka-kit';
import { syntheticLedger } from '../../libs/projections/src/testing/synthetic-shoes';
import type { DataSource } from 'typeorm';
import { until } from './until';
import { LedgerHarness, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT } from '@ledger/read-model';

jest.setTimeout(240_000);

describe('a halted projection is an incident, not a log line', () => {
  let h: LedgerHarness;
  let ds: DataSource;
  let producer: KafkaProducer;
  let runner: ProjectionRunner;
  let failed: unknown = null;
  const group = `projector-halt-${Date.now()}`;
  const ledger = syntheticLedger({ shoes: 6, seed: 11, prefix: `halt${Date.now() % 100000}`, maxRounds: 6 });
  const halts: ProjectionIncident[] = [];

  beforeAll(async () => {
    h = await startLedger();
    ds = createProjectionDataSource(TEST_SERVICE_DATABASE_URLS.projector, { applicationName: 'projector-halt-test', poolSize: 6 });
    await ds.initialize();
    producer = h.kafka.producer();
    await producer.connect();
    runner = new ProjectionRunner({
      projections: ALL_PROJECTIONS,
      effects: [ANALYTICS_OUTBOX_EFFECT],
      kafka: h.kafka,
      ds,
      topic: h.topic,
      schema: h.readSchema,
      groupId: group,
      holdSchemaLock: false,
      incidentPollMs: 1000,
      onHalt: (i) => halts.push(i),
    });
    runner.failed.catch((e) => (failed = e));
    await runner.start();
  });

  afterAll(async () => {
    await runner?.stop();
    await producer?.disconnect();
    if (ds?.isInitialized) await ds.destroy();
    await h?.close();
  });

  const caughtUp = async (partitions: (p: number) => boolean) => {
    const hw = await highWatermarks(h.kafka, h.topic);
    const cps = await storedCheckpoints(ds, h.readSchema, group, h.topic);
    return [...hw].every(([p, o]) => !partitions(p) || o === 0n || (cps.get(p) ?? 0n) >= o);
  };

  it('halts only the partition of the poison event, records, shows and counts it, and keeps projecting the others', async () => {
    const events = ledger.events;
    const half = Math.floor(events.length / 2);
    await produce(producer, h.topic, events.slice(0, half));
    await until('the first half projected', () => caughtUp(() => true));

    // an authentic, well-linked event the projections cannot apply: a dealer change of a shoe never opened
    const table = events[0].tableId;
    const poisonStream = new StreamBuilder(`never-opened-${Date.now()}`, table, null, idFactory(`poison:${Date.now()}`));
    const poison = poisonStream.add('DealerChanged', { previousDealerId: 'D-A', dealerId: 'D-B' }, { actor: { id: `device-${table}`, role: 'table-device' }, occurredAt: '2025-03-01T07:00:00.000Z' });
    (poison as { globalPosition: string }).globalPosition = String(events.length + 1);
    const haltsBefore = await metricValue('ledger_projection_halts_total', { code: 'PROJECTION.INCONSISTENT_EVENT' });
    await produce(producer, h.topic, [poison as LedgerEvent]);

    const [incident] = await until('an incident row', async () => {
      const open = await openIncidents(ds, h.readSchema, { consumerGroup: group });
      return open.length > 0 ? open : null;
    });
    expect(incident).toMatchObject({ code: 'PROJECTION.INCONSISTENT_EVENT', eventId: poison.eventId, globalPosition: poison.globalPosition, projection: 'shoe_state', resolvedAt: null });
    const P = incident.partition;
    const hwAtPoison = await highWatermarks(h.kafka, h.topic);
    expect(incident.kafkaOffset).toBe((hwAtPoison.get(P)! - 1n).toString());
    expect(incident.checkpointOffset).toBe(incident.kafkaOffset); // nothing after the last good record was applied
    expect(halts.map((i) => i.id)).toEqual([incident.id]);
    expect(await metricValue('ledger_projection_halts_total', { code: 'PROJECTION.INCONSISTENT_EVENT' })).toBe(haltsBefore + 1);

    // the other partitions go on: the second half of the events, every table
    await produce(producer, h.topic, events.slice(half));
    await until('the other partitions projected', () => caughtUp((p) => p !== P));
    const cps = await storedCheckpoints(ds, h.readSchema, group, h.topic);
    expect(cps.get(P)!.toString()).toBe(incident.kafkaOffset); // the halted one stays at the poison
    const hw = await highWatermarks(h.kafka, h.topic);
    expect([...hw].filter(([p, o]) => p !== P && o > 0n).length).toBeGreaterThan(0); // there were other partitions to serve
    expect(runner.haltedPartitions).toEqual(new Map([[P, 'PROJECTION.INCONSISTENT_EVENT']]));
    expect(failed).toBeNull(); // the runner did not give up: the process would not exit

    // the API shows it: the status route (back office, regulator), /health (no token), the gauge
    const call = (role: 'auditor' | 'table-device') => fetch(`${h.baseUrl}/projections/status`, { headers: { authorization: `Bearer ${h.client.token(role, `${role}-halt-test`)}` } });
    const answer = await call('auditor');
    expect(answer.status).toBe(200);
    const status = { body: (await answer.json()) as ProjectionStatus };
    expect(status.body.status).toBe('halted');
    expect(status.body.openIncidents.map((i) => [i.id, i.code, i.partition])).toEqual([[incident.id, 'PROJECTION.INCONSISTENT_EVENT', P]]);
    const mine = status.body.partitions.filter((p) => p.consumerGroup === group);
    expect(mine.find((p) => p.partition === P)).toMatchObject({ status: 'halted', checkpoint: { nextOffset: incident.kafkaOffset } });
    expect(mine.filter((p) => p.partition !== P).every((p) => p.status === 'running' && p.checkpoint!.topicId !== null)).toBe(true);
    expect((await call('table-device')).status).toBe(403);
    const health = await fetch(`${h.baseUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'degraded', projections: { status: 'halted', halted: [{ consumerGroup: group, topic: h.topic, partition: P, code: 'PROJECTION.INCONSISTENT_EVENT' }] } });
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^ledger_projection_halted_partitions 1$/m);

    // resumed without a fix: the partition retries the same event and halts again, a new incident
    const resolved = await resumePartitions({ ds, kafka: h.kafka, schema: h.readSchema, consumerGroup: group, topic: h.topic, resetOffsets: false, by: 'operator-test', reason: 'retry' });
    expect(resolved.map((i) => [i.id, i.resolvedBy])).toEqual([[incident.id, 'operator-test']]);
    const [again] = await until('a second incident', async () => {
      const open = await openIncidents(ds, h.readSchema, { consumerGroup: group });
      return open.length > 0 && open[0].id !== incident.id ? open : null;
    });
    expect(again).toMatchObject({ partition: P, code: 'PROJECTION.INCONSISTENT_EVENT', eventId: poison.eventId });
    expect(await metricValue('ledger_projection_halts_total', { code: 'PROJECTION.INCONSISTENT_EVENT' })).toBe(haltsBefore + 2);
    expect(failed).toBeNull();
  });
});
