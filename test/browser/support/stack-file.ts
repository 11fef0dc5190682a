/**
 * What the browser tier's global setup started and seeded, written to `.stack/browser/stack.json`
 * for the specs (read through the `stack` fixture of ./fixtures.ts). Ids are the ledger's own;
 * nothing here is a figure the console should show: specs compare the page with the API's answer.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { REPO_ROOT } from './ledger-dist';

/** The tier's working folder (git-ignored `.stack`). */
export const BROWSER_DIR = resolve(REPO_ROOT, '.stack/browser');
/** The services' logs, left after the run. */
export const LOGS_DIR = resolve(BROWSER_DIR, 'logs');
/** Full-page screenshots of every page (./screenshots.ts), kept as the run's artifacts. */
export const SCREENSHOTS_DIR = resolve(BROWSER_DIR, 'screenshots');
/** The file this module reads and writes. */
export const STACK_FILE = resolve(BROWSER_DIR, 'stack.json');

/** The options a seeded shoe was generated with (`generateShoeScript` of `@ledger/simulator`), to deal more of it later. */
export interface SeededScriptOptions {
  readonly seed: string;
  readonly maxRounds: number;
  readonly accounts: number;
  readonly betChance: number;
  readonly managementVoidChance: number;
  readonly correctionChance: number;
  readonly dealerId: string;
}

/** One seeded shoe: left OPEN (no closeShoe), so a spec may deal more rounds into it (./seed.ts `dealRounds`). */
export interface SeededShoe {
  readonly tableId: string;
  readonly variant: string;
  readonly shoeId: string;
  /** Every round opened in the shoe, in hand order (ids `<shoeId>-R001`…). */
  readonly roundIds: string[];
  /** How many actions of the generated script were sent (the next one's index; Idempotency-Key `<shoeId>:<index>`). */
  readonly actionsSent: number;
  /** The last event of the shoe's stream after the seeding (the projections applied it). */
  readonly lastEventId: string;
  readonly script: SeededScriptOptions;
}

/** The four-eyes decisions on T-CLASSIC-01: requested by `pm-1`, approved by `pm-2` (docs/domain-rules.md §6). */
export interface SeededClassic {
  readonly tableId: 'T-CLASSIC-01';
  readonly shoeId: string;
  /** Rounds resulted and neither voided nor corrected. */
  readonly resultedRoundIds: string[];
  readonly voidedRoundId: string;
  readonly voidDecisionId: string;
  readonly correctedRoundId: string;
  readonly correctionDecisionId: string;
}

/** `.stack/browser/stack.json`. */
export interface BrowserStack {
  /** The API, e.g. `http://127.0.0.1:41234` (the console is `${baseUrl}/console`). */
  readonly baseUrl: string;
  readonly consoleUrl: string;
  /** The tier's own database (`BROWSER_DB_NAME`, default `ledger_browser`). */
  readonly dbName: string;
  /** The event topic of this run (`browser.ledger.events.<run>`). */
  readonly eventsTopic: string;
  /** The run's tag (topic, group, schema names). */
  readonly runTag: string;
  readonly logsDir: string;
  /** Seeded shoes, one per table of config/tables.json. */
  readonly shoes: SeededShoe[];
  readonly classic: SeededClassic;
  /** ISO time the seeding finished. */
  readonly seededAt: string;
}

/** Writes the stack file. */
export function writeStack(stack: BrowserStack): void {
  mkdirSync(dirname(STACK_FILE), { recursive: true });
  writeFileSync(STACK_FILE, JSON.stringify(stack, null, 2) + '\n');
}

/**
 * Reads the stack file the global setup wrote.
 * @throws Error when there is none (the specs run only under test/browser/playwright.config.ts)
 */
export function readStack(): BrowserStack {
  try {
    return JSON.parse(readFileSync(STACK_FILE, 'utf8')) as BrowserStack;
  } catch (e) {
    throw new Error(`${STACK_FILE} unreadable (${(e as Error).message}): run the specs with -c test/browser/playwright.config.ts, whose global setup writes it`);
  }
}

/** The seeded shoe of a table. @throws Error when the table has none */
export function shoeOf(stack: BrowserStack, tableId: string): SeededShoe {
  const s = stack.shoes.find((x) => x.tableId === tableId);
  if (!s) throw new Error(`no seeded shoe on ${tableId} (seeded: ${stack.shoes.map((x) => x.tableId).join(', ')})`);
  return s;
}
