import { Injectable } from '@nestjs/common';

/** A dependency check run by `/readyz`: resolves when usable, rejects with the reason otherwise. */
export type ReadinessCheck = () => Promise<unknown>;

/** Collects the readiness checks of a service (bus, store, vector store, upstreams...). */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();

  /** Adds or replaces the check called `name`. */
  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  entries(): Array<[string, ReadinessCheck]> {
    return [...this.checks];
  }
}
