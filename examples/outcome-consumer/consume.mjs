#!/usr/bin/env node
// A standalone consumer of the ledger's settlement records (topic baccarat.analytics.settlements.v1):
// reads the topic from offset zero, skips duplicates by the `ce_id` header, validates every record
// (headers and value) against the JSON Schemas the ledger API serves at GET /schemas (or read from a
// directory), and prints a running GGR per currency in exact integer minor units (BigInt).
// Depends on kafkajs and ajv only — nothing of the product's code. See README.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]?.startsWith('--') || all[i + 1] === undefined ? 'true' : all[i + 1]]] : acc), []));
const brokers = (args.brokers ?? '127.0.0.1:9092').split(',');
const topic = args.topic ?? 'baccarat.analytics.settlements.v1';
const schemasUrl = args['schemas-url']; // e.g. http://127.0.0.1:3000/schemas
const schemasDir = args['schemas-dir']; // e.g. docs/asyncapi/schemas
const idleMs = args['idle-ms'] ? Number(args['idle-ms']) : null; // stop after this long without a record
const HEADERS_ID = 'urn:baccarat-ledger:schemas:analytics-headers.v1.schema.json';
const ID_BASE = 'urn:baccarat-ledger:schemas:';

/** The schema of an id `urn:baccarat-ledger:schemas:<file>`: GET <schemas-url>/<file>, or <schemas-dir>/<file>. */
async function loadSchema(id) {
  if (!id.startsWith(ID_BASE)) throw new Error(`not a ledger schema id: ${id}`);
  const file = id.slice(ID_BASE.length);
  if (!/^[a-z0-9-]+\.v[0-9]+\.schema\.json$/.test(file)) throw new Error(`not a ledger schema file: ${file}`);
  if (schemasDir) return JSON.parse(readFileSync(join(schemasDir, file), 'utf8'));
  if (!schemasUrl) throw new Error('give --schemas-url or --schemas-dir');
  const res = await fetch(`${schemasUrl.replace(/\/$/, '')}/${file}`);
  if (res.status !== 200) throw new Error(`GET ${schemasUrl}/${file}: ${res.status}`);
  return res.json();
}

const ajv = new Ajv({ allErrors: true, strict: true, loadSchema });
addFormats(ajv);
const validators = new Map();
async function validator(id) {
  if (!validators.has(id)) validators.set(id, ajv.getSchema(id) ?? (await ajv.compileAsync(await loadSchema(id))));
  return validators.get(id);
}

const seen = new Set(); // ce_id of every record counted
const inForce = new Map(); // betId -> { rank, currency, ggr } of the record in force
const ggr = new Map(); // currency -> BigInt minor units
let records = 0;
let duplicates = 0;
let invalid = 0;

/** The order of a bet's records: higher revision wins, REFUNDED last at the same revision. */
const rank = (v) => BigInt(v.revision) * 2n + (v.status === 'REFUNDED' ? 1n : 0n);
/** GGR of one record in minor units: stake − payout (the house's gain); a refund is 0. */
const ggrOf = (v) => (v.status === 'REFUNDED' ? 0n : BigInt(v.stake) - BigInt(v.payout));

function print() {
  const totals = Object.fromEntries([...ggr.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([c, v]) => [c, v.toString()]));
  console.log(JSON.stringify({ ggr: totals, records, duplicates, invalid }));
}

async function handle(message, partition) {
  const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('utf8') : String(v)]));
  const ceId = headers.ce_id;
  if (ceId !== undefined && seen.has(ceId)) {
    duplicates++;
    console.log(`duplicate ce_id ${ceId} skipped (partition ${partition} offset ${message.offset})`);
    return;
  }
  const checkHeaders = await validator(HEADERS_ID);
  let value;
  try {
    value = JSON.parse(message.value.toString('utf8'));
  } catch {
    value = undefined;
  }
  const checkValue = headers.ce_dataschema ? await validator(headers.ce_dataschema).catch(() => null) : null;
  if (!checkHeaders(headers) || !checkValue || !checkValue(value) || value.recordId !== ceId) {
    invalid++;
    console.log(`invalid record skipped (partition ${partition} offset ${message.offset}): ${ajv.errorsText(checkHeaders.errors ?? checkValue?.errors)}`);
    return;
  }
  seen.add(ceId);
  records++;
  const r = rank(value);
  const before = inForce.get(value.betId);
  if (before && before.rank >= r) return print(); // an older revision arriving late changes nothing
  const g = ggrOf(value);
  if (before) ggr.set(before.currency, (ggr.get(before.currency) ?? 0n) - before.ggr);
  ggr.set(value.currency, (ggr.get(value.currency) ?? 0n) + g);
  inForce.set(value.betId, { rank: r, currency: value.currency, ggr: g });
  print();
}

const kafka = new Kafka({ clientId: 'outcome-consumer-example', brokers, logLevel: logLevel.NOTHING });
const consumer = kafka.consumer({ groupId: args.group ?? `outcome-consumer-example-${randomUUID()}` });
await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: true });
let timer = null;
const stop = async () => {
  await consumer.disconnect();
  console.log('FINAL ' + JSON.stringify({ ggr: Object.fromEntries([...ggr.entries()].map(([c, v]) => [c, v.toString()])), records, duplicates, invalid }));
  process.exit(0);
};
const arm = () => {
  if (idleMs === null) return;
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => void stop(), idleMs);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
arm();
// one record at a time, in partition order: the running total is printed after each
await consumer.run({
  eachMessage: async ({ message, partition }) => {
    arm();
    await handle(message, partition);
  },
});
