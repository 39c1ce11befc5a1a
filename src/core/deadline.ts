import { performance } from 'node:perf_hooks';

/**
 * A monotonic budget shared by every native call of one command. Deadlines measure
 * durations, so they use the monotonic timer rather than the injectable wall clock.
 */
export class Deadline {
  private constructor(private readonly at: number) {}

  static after(ms: number): Deadline {
    return new Deadline(performance.now() + ms);
  }

  static none(): Deadline {
    return new Deadline(Number.POSITIVE_INFINITY);
  }

  remainingMs(): number {
    return Math.max(0, this.at - performance.now());
  }

  get isExpired(): boolean {
    return this.remainingMs() <= 0;
  }

  /** The earlier of this deadline and `ms` from now. */
  capped(ms: number): Deadline {
    return new Deadline(Math.min(this.at, performance.now() + ms));
  }
}
