/**
 * Failure containment of the bench (bench/run.ts): each phase and each ceiling runs through
 * {@link contained}, so an error in one (a broker unreachable, a Java tool missing, a timeout) is
 * recorded under its name in `failures` of latest.json, with its message, and the run goes on with
 * the others; the targets it fed say 'not measured' and why (bench/lib/targets.ts).
 */
import { say } from './util';

/** Longest error message kept per failure, in characters (tool output can be long). */
export const FAILURE_MESSAGE_MAX = 1500;

/** An error's message on one line, capped at {@link FAILURE_MESSAGE_MAX} characters (the tail is kept: tools print the cause last). */
export function errorMessage(e: unknown): string {
  const text = (e instanceof Error ? e.message : String(e)).trim().replace(/\s*\n\s*/g, ' | ');
  return text.length > FAILURE_MESSAGE_MAX ? `…${text.slice(-FAILURE_MESSAGE_MAX)}` : text;
}

/**
 * Runs `fn`; when it throws, records `failures[name]` (its {@link errorMessage}), says so, and
 * resolves to undefined. Never throws.
 */
export async function contained<T>(failures: Record<string, string>, name: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    failures[name] = errorMessage(e);
    say(`FAILED ${name}: ${failures[name].slice(0, 400)}`);
    return undefined;
  }
}

/**
 * The bench's exit code: 0 when every phase and ceiling it ran produced its figures (missed targets
 * included: they are results), 1 when any failed (a figure is missing, CI must see it) — latest.json
 * is written either way.
 */
export function exitCodeOf(failures: Readonly<Record<string, string>>): number {
  return Object.keys(failures).length > 0 ? 1 : 0;
}
