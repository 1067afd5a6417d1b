import { Injectable } from '@nestjs/common';

/** A dependency check run by `/readyz`: resolves when usable, rejects with the reason otherwise. */
export type ReadinessCheck = () => Promise<unknown>;

/** Name of the readiness check that fails while start-up seeding runs; also its message. */
export const SEEDING_CHECK = 'seeding';

/** Ends one piece of start-up seeding (calling it again does nothing). */
export type SeedingDone = () => void;

/** Collects the readiness checks of a service (bus, store, vector store, upstreams...). */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();
  /** Start-up seeding still running, by a key of its own (two tasks may share a name). */
  private readonly seeding = new Map<symbol, string>();

  /** Adds or replaces the check called `name`. */
  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  entries(): Array<[string, ReadinessCheck]> {
    return [...this.checks];
  }

  /**
   * Marks start-up work a caller should not see half done (flows, deployments, templates or
   * schedules being seeded or loaded): until every such task has ended, the `seeding` check fails
   * with the message `seeding`, so `/readyz` answers 503 and the gateway's health names the service.
   */
  beginSeeding(task: string): SeedingDone {
    const key = Symbol(task);
    this.seeding.set(key, task);
    if (!this.checks.has(SEEDING_CHECK)) {
      this.add(SEEDING_CHECK, async () => {
        if (this.seeding.size) throw Object.assign(new Error(SEEDING_CHECK), { details: { tasks: [...this.seeding.values()] } });
        return undefined;
      });
    }
    return () => void this.seeding.delete(key);
  }

  /** True while some start-up seeding has not ended. */
  get isSeeding(): boolean {
    return this.seeding.size > 0;
  }
}
