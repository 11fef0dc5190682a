/**
 * Writes the metric catalogue's table (libs/metrics/src/catalogue.ts) into docs/architecture.md §8
 * between the `metrics-table` markers. Run after changing the catalogue: `npx tsx scripts/gen-metrics-docs.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogueMarkdown } from '../libs/metrics/src/catalogue';

const file = join(__dirname, '..', 'docs/architecture.md');
const text = readFileSync(file, 'utf8');
const begin = '<!-- metrics-table:begin -->';
const end = '<!-- metrics-table:end -->';
const from = text.indexOf(begin);
const to = text.indexOf(end);
if (from < 0 || to < from) throw new Error('docs/architecture.md has no metrics-table markers');
writeFileSync(file, `${text.slice(0, from + begin.length)}\n${catalogueMarkdown()}\n${text.slice(to)}`);
