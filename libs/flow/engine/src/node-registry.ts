import type { NodeDefinition, NodeHandler, NodeManifest } from './node-manifest';

/** Registering an id that is already taken without `replace`. */
export class DuplicateNodeError extends Error {
  readonly code = 'DUPLICATE_NODE';
  constructor(readonly nodeId: string) {
    super(`node ${JSON.stringify(nodeId)} is already registered`);
    this.name = 'DuplicateNodeError';
  }
}

/**
 * Node handlers by id, registered at startup. An `action_ref` that is not here makes its flow node
 * broken: `compileFlow` lists it, and a run that reaches it fails. A compiled flow binds handlers
 * and interprets configs once, so after registering a node (a remote service coming up) recompile
 * the versions that referenced it.
 */
export class NodeRegistry {
  private readonly nodes = new Map<string, NodeDefinition>();
  private readonly listeners = new Set<(id: string) => void>();

  constructor(definitions: Iterable<NodeDefinition> = []) {
    for (const d of definitions) this.register(d);
  }

  /** Adds a node; an id already registered throws `DuplicateNodeError` unless `replace` is set. */
  register(definition: NodeDefinition, options: { replace?: boolean } = {}): this {
    const { manifest, handler } = definition;
    if (!manifest || typeof manifest.id !== 'string' || manifest.id.trim() === '') {
      throw new TypeError('a node manifest needs a non-empty id');
    }
    if (typeof handler !== 'function') throw new TypeError(`node ${manifest.id}: handler must be a function`);
    if (this.nodes.has(manifest.id) && !options.replace) throw new DuplicateNodeError(manifest.id);
    this.nodes.set(manifest.id, { manifest, handler });
    this.changed(manifest.id);
    return this;
  }

  /**
   * Calls `listener` with the id after every register and unregister (a compiled flow may now hold
   * a stale manifest: see `boundToReplacedNode`). Returns the function that removes it.
   */
  onChange(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private changed(id: string): void {
    for (const listener of this.listeners) listener(id);
  }

  /** Shorthand for `register({manifest, handler})`. */
  define(manifest: NodeManifest, handler: NodeHandler): this {
    return this.register({ manifest, handler });
  }

  unregister(id: string): boolean {
    const removed = this.nodes.delete(id);
    if (removed) this.changed(id);
    return removed;
  }

  get(id: string): NodeDefinition | undefined {
    return this.nodes.get(id);
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  /** Every manifest, by id. */
  list(): NodeManifest[] {
    return [...this.nodes.values()].map((d) => d.manifest).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
