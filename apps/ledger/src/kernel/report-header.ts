import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The header every report and export carries (docs/reports.md §1), the fields regulators' reporting
 * rules ask for (e.g. 58 Pa. Code § 811a.9): what the report is, the period it covers, the filters
 * it was run with, the software and report version that produced it, when, and whether the period
 * had any activity at all ("no activity" is stated, never implied by an empty body).
 */
export interface ReportHeader {
  /** Human title, e.g. `Reconciliation report`. */
  readonly title: string;
  /** Stable machine name of the report, e.g. `reconciliation`, `gaming-day-close`, `export.events`. */
  readonly report: string;
  /** Version of the report's layout; bumped when a field's meaning changes (docs/reports.md). */
  readonly reportVersion: number;
  /** The period covered: ISO dates (gaming days) or ISO times, `null` when open-ended. */
  readonly period: { readonly from: string | null; readonly to: string | null };
  /** The filters the report was run with (only those given), as strings. */
  readonly filters: Readonly<Record<string, string>>;
  /** The ledger's software name and version (package.json) that produced it. */
  readonly software: { readonly name: string; readonly version: string };
  /** ISO-8601 UTC time the report was produced. Left out of signed bytes where determinism is asked (see docs/reports.md). */
  readonly generatedAt: string;
  /** True when the period holds no activity for the filters (the body is then empty). */
  readonly noActivity: boolean;
}

let software: { name: string; version: string } | undefined;

/** The ledger's software name and version, read once from the repository's package.json. */
export function softwareVersion(): { name: string; version: string } {
  if (!software) {
    // the nearest package.json above this file: the repository's, from the sources and from dist/ alike
    let dir = __dirname;
    while (!existsSync(resolve(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
    const pkg = JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as { name: string; version: string };
    software = { name: pkg.name, version: pkg.version };
  }
  return software;
}

/**
 * Builds a report header.
 * @param filters only the defined values are kept, stringified
 * @param now the generation time (injected for tests), default the clock
 */
export function reportHeader(
  title: string,
  report: string,
  reportVersion: number,
  period: { from?: string | null; to?: string | null },
  filters: Record<string, unknown>,
  noActivity: boolean,
  now: Date = new Date(),
): ReportHeader {
  const kept: Record<string, string> = {};
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== null && v !== '') kept[k] = String(v);
  return { title, report, reportVersion, period: { from: period.from ?? null, to: period.to ?? null }, filters: kept, software: softwareVersion(), generatedAt: now.toISOString(), noActivity };
}

/** Name of the HTTP response header that carries a report's header where the body cannot (CSV), docs/reports.md §1. */
export const REPORT_HEADER_HTTP = 'ledger-report-header';

/**
 * A report header (or any JSON value) as an HTTP header value: its JSON with every character outside
 * printable ASCII written as `\uXXXX` (still JSON: `JSON.parse` reads it back), so any filter text fits
 * and no CR/LF can reach the header (docs/reports.md §1).
 */
export function headerValue(h: unknown): string {
  return JSON.stringify(h).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
