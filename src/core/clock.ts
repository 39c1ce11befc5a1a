import { UsageError } from './errors.js';

/** The one source of "now". Every wall-clock reading in the tool goes through a Clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(instant: Date | string): Clock {
  const date = typeof instant === 'string' ? parseRfc3339(instant) : instant;
  return { now: () => new Date(date.getTime()) };
}

// RFC 3339 date-time: full date, 'T' or space, time with optional fraction, and a zone.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function isRfc3339(text: string): boolean {
  return RFC3339.test(text) && !Number.isNaN(Date.parse(text));
}

export function parseRfc3339(text: string): Date {
  if (!isRfc3339(text)) {
    throw new UsageError(`not an RFC 3339 instant: ${JSON.stringify(text)}`, 'e.g. 2026-01-31T12:00:00Z');
  }
  return new Date(Date.parse(text));
}

/**
 * The clock for a command: `STW_NOW` (RFC 3339) pins it, otherwise the system clock.
 * A malformed `STW_NOW` is a usage error rather than a silent fallback to real time.
 */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const pinned = env['STW_NOW'];
  if (pinned === undefined || pinned === '') return systemClock;
  const date = parseRfc3339(pinned);
  return fixedClock(date);
}

/** RFC 3339 in UTC with second precision, the form every file the tool writes uses. */
export function formatInstant(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
