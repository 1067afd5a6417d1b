import { LlmConfigError } from '../errors';
import { BlocklistGuard } from './blocklist.guard';
import type { Guard } from './guard';
import { LlmClassifierGuard } from './llm-classifier.guard';
import { PiiGuard } from './pii.guard';

/** Guards by id: the option source `guard.guards`. */
export class GuardRegistry {
  private readonly guards = new Map<string, Guard>();

  constructor(guards: Iterable<Guard> = [new BlocklistGuard(), new PiiGuard(), new LlmClassifierGuard()]) {
    for (const g of guards) this.register(g);
  }

  register(guard: Guard, options: { replace?: boolean } = {}): this {
    if (this.guards.has(guard.id) && !options.replace) throw new Error(`guard ${guard.id} is already registered`);
    this.guards.set(guard.id, guard);
    return this;
  }

  get(id: string): Guard | undefined {
    return this.guards.get(id);
  }

  require(id: string | undefined): Guard {
    const key = (id ?? '').trim();
    const guard = key ? this.guards.get(key) : undefined;
    if (!guard) throw new LlmConfigError(key ? `unknown guard ${JSON.stringify(key)}; registered: ${this.ids().join(', ')}` : `guardID is required; registered: ${this.ids().join(', ')}`);
    return guard;
  }

  ids(): string[] {
    return [...this.guards.keys()].sort();
  }
}
