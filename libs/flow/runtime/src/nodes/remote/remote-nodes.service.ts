import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit, Optional } from '@nestjs/common';
import type { NodeHandler, NodeManifest, NodeRegistry } from '@flowplane/flow/engine';
import { ServiceTokenProvider } from '@flowplane/platform/auth';
import { currentRequestId, DomainException } from '@flowplane/platform/http';
import { SERVICE_CONTEXT, type ServiceConfig, type ServiceContext, STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import type { FlowRuntimeEnv } from '../../flow-runtime.env';
import { NODE_REGISTRY } from '../nodes.tokens';
import type { RegisterRemoteNodeDto, RemoteNodeRegistrationView } from './remote-node.dto';
import { invokeRemoteNode, type RemoteInvokeOptions, type RemoteNodeRegistration } from './remote-node.handler';
import { registrationProblems } from './remote-node.validation';
import { platformServiceUrls, RemoteNodeUrlPolicy } from './remote-node-url.policy';

/** Store collection of remote node registrations (one document per node id). */
export const REMOTE_NODES_COLLECTION = 'remote_nodes';
/** How often every replica re-reads the registrations, in ms: the staleness bound of another replica's change. */
export const REMOTE_NODES_REFRESH_MS = 5000;
/** Nest token overriding the refresh period (tests); 0 disables the periodic refresh. */
export const REMOTE_NODES_REFRESH = Symbol('REMOTE_NODES_REFRESH');

interface RemoteNodeDocument extends StoreDocument {
  /** The manifest as JSON: schema keys such as `$ref` or dotted names are not valid MongoDB field names. */
  manifestJson: string;
  invokeUrl: string;
  timeoutMs: number | null;
  source: string;
  /** Changes on every write; replicas re-register a node when it differs from what they hold. */
  revision: string;
  registeredAt: Date;
}

interface Known extends RemoteNodeRegistration {
  revision: string;
  registeredAt: Date;
}

/**
 * Remote node handlers (issue 4 item 5): other services register a manifest plus an invoke URL over
 * `PUT /internal/nodes/{id}`; each step of such a node is a POST to that URL with a token of its own
 * that names the run step and opens nothing else (never a service token). The invoke URL must be
 * https unless its host is loopback, one of the platform's services or in REMOTE_NODE_ALLOWED_HOSTS.
 *
 * Registrations live in the store, so they survive restarts and every replica serves them: all are
 * loaded into the node registry at startup (before any version is compiled), and every replica
 * re-reads them every REMOTE_NODES_REFRESH_MS (5 s). A registration or removal made through another
 * replica is therefore seen here within about 5 s (plus one store read); the replica that took the
 * request applies it at once.
 *
 * Each remote id has ONE handler function for the life of the process, which looks the current
 * registration up on every call: a compiled (cached) flow version picks up a new invoke URL or
 * timeout at once, and fails with a clear error once the node is unregistered. Ports and settings
 * schema are bound when a version is compiled; registering the node again replaces its registry
 * entry, and the runs service then drops the versions compiled against the old manifest (see
 * `boundToReplacedNode`), so the next run compiles them with the new one.
 */
@Injectable()
export class RemoteNodesService implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('RemoteNodes');
  private readonly docs: Collection<RemoteNodeDocument>;
  private readonly known = new Map<string, Known>();
  private readonly handlers = new Map<string, NodeHandler>();
  /** Ids of stored registrations that collide with a built-in, warned about once. */
  private readonly shadowed = new Set<string>();
  private readonly invokeOptions: RemoteInvokeOptions;
  private readonly urls: RemoteNodeUrlPolicy;
  private readonly refreshMs: number;
  private timer?: NodeJS.Timeout;
  /** Serialises syncs and writes, so a refresh never re-applies a registration older than one just written. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    @Inject(STORE) store: Store,
    @Inject(SERVICE_CONTEXT) ctx: ServiceContext,
    @Optional() @Inject(ServiceTokenProvider) tokens?: ServiceTokenProvider | null,
    @Optional() @Inject(REMOTE_NODES_REFRESH) refreshMs?: number,
  ) {
    this.docs = store.collection<RemoteNodeDocument>(REMOTE_NODES_COLLECTION);
    const config = ctx.config as ServiceConfig & Partial<FlowRuntimeEnv>;
    this.urls = new RemoteNodeUrlPolicy(config.REMOTE_NODE_ALLOWED_HOSTS, () => platformServiceUrls(ctx.serviceUrls, ctx.env));
    this.invokeOptions = {
      defaultTimeoutMs: config.FLOW_NODE_TIMEOUT_MS ?? 30_000,
      stepToken: tokens ? (step, ttlSeconds) => tokens.stepToken(step, ttlSeconds) : undefined,
      urlProblem: (url) => this.urls.problem(url),
      requestId: currentRequestId,
    };
    this.refreshMs = refreshMs ?? REMOTE_NODES_REFRESH_MS;
  }

  async onModuleInit(): Promise<void> {
    await this.sync();
    if (this.refreshMs > 0) {
      this.timer = setInterval(() => void this.refresh(), this.refreshMs);
      this.timer.unref();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.chain.catch(() => undefined);
  }

  /** Whether `id` is a remote node registered here. */
  isRemote(id: string): boolean {
    return this.known.has(id);
  }

  /** The registering service of a remote node. */
  sourceOf(id: string): string | undefined {
    return this.known.get(id)?.source;
  }

  /** Registers or replaces a remote node; 400 for an invalid registration, 409 for a built-in id. */
  async register(id: string, dto: RegisterRemoteNodeDto, source: string): Promise<RemoteNodeRegistrationView> {
    const problems = registrationProblems(id, dto, this.urls);
    if (problems.length) {
      throw new DomainException('REMOTE_NODE_INVALID', 400, `invalid remote node registration: ${problems.map((p) => `${p.field}: ${p.problems.join('; ')}`).join(' | ')}`, { details: problems });
    }
    this.assertNotBuiltin(id);
    const timeoutMs = dto.timeoutMs ?? dto.manifest.timeoutMs;
    const manifest = this.toManifest(dto, timeoutMs);
    return this.serial(async () => {
      this.assertNotBuiltin(id);
      const existed = (await this.docs.countDocuments({ _id: id })) > 0;
      const doc: RemoteNodeDocument = { _id: id, manifestJson: JSON.stringify(manifest), invokeUrl: dto.invokeUrl, timeoutMs: timeoutMs ?? null, source, revision: randomUUID(), registeredAt: new Date() };
      const { _id, ...fields } = doc;
      await this.docs.replaceOne({ _id }, fields, { upsert: true });
      this.apply(doc);
      this.log.log(`remote node ${id} registered by ${source} -> ${new URL(dto.invokeUrl).origin}`);
      return { id, source, invokeUrl: dto.invokeUrl, timeoutMs, registeredAt: doc.registeredAt.toISOString(), created: !existed };
    });
  }

  /** Removes a remote node; 404 when there is none, 409 for a built-in. */
  async unregister(id: string): Promise<void> {
    await this.serial(async () => {
      const builtin = this.registry.has(id) && !this.known.has(id);
      // A stored registration shadowed by a built-in may still be removed; the built-in stays.
      const { deletedCount } = await this.docs.deleteOne({ _id: id });
      if (builtin) {
        if (deletedCount) return;
        this.assertNotBuiltin(id);
      }
      const wasKnown = this.known.has(id);
      this.drop(id);
      if (!deletedCount && !wasKnown) throw new DomainException('REMOTE_NODE_NOT_FOUND', 404, `no remote node ${id}`);
      this.log.log(`remote node ${id} unregistered`);
    });
  }

  /** Re-reads every registration from the store and brings the registry in line (startup and every refresh). */
  sync(): Promise<void> {
    return this.serial(async () => {
      const docs = await this.docs.find({});
      const seen = new Set<string>();
      for (const doc of docs) {
        seen.add(doc._id);
        this.apply(doc);
      }
      for (const id of [...this.known.keys()]) if (!seen.has(id)) this.drop(id);
    });
  }

  private async refresh(): Promise<void> {
    try {
      await this.sync();
    } catch (e) {
      this.log.warn(`cannot refresh remote nodes (keeping the last known ones): ${(e as Error).message}`);
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Registers a stored registration unless this replica already holds that revision. */
  private apply(doc: RemoteNodeDocument): void {
    const held = this.known.get(doc._id);
    if (held?.revision === doc.revision) return;
    if (!held && this.registry.has(doc._id)) {
      if (!this.shadowed.has(doc._id)) this.log.warn(`stored remote node ${doc._id} is ignored: a built-in node has that id`);
      this.shadowed.add(doc._id);
      return;
    }
    let manifest: NodeManifest;
    try {
      manifest = JSON.parse(doc.manifestJson) as NodeManifest;
    } catch {
      this.log.warn(`stored remote node ${doc._id} has an unreadable manifest; ignored`);
      return;
    }
    this.registry.register({ manifest, handler: this.handlerFor(doc._id) }, { replace: true });
    this.known.set(doc._id, { manifest, invokeUrl: doc.invokeUrl, timeoutMs: doc.timeoutMs ?? undefined, source: doc.source, revision: doc.revision, registeredAt: new Date(doc.registeredAt) });
  }

  private drop(id: string): void {
    if (!this.known.delete(id)) return;
    this.registry.unregister(id);
  }

  private assertNotBuiltin(id: string): void {
    if (this.registry.has(id) && !this.known.has(id)) {
      throw new DomainException('NODE_IS_BUILTIN', 409, `node ${id} is built into flow-runtime; a remote node may not replace it`);
    }
  }

  /** One stable handler per id: it reads the current registration on every call. */
  private handlerFor(id: string): NodeHandler {
    let handler = this.handlers.get(id);
    if (!handler) {
      handler = (ctx) => {
        const reg = this.known.get(id);
        if (!reg) throw new Error(`remote node ${JSON.stringify(id)} is not registered any more`);
        return invokeRemoteNode(reg, ctx, this.invokeOptions);
      };
      this.handlers.set(id, handler);
    }
    return handler;
  }

  private toManifest(dto: RegisterRemoteNodeDto, timeoutMs: number | undefined): NodeManifest {
    const m = dto.manifest;
    const port = (p: { port: string; schema?: Record<string, unknown>; description?: string }) => ({
      port: p.port,
      ...(p.schema !== undefined ? { schema: p.schema } : {}),
      ...(p.description !== undefined ? { description: p.description } : {}),
    });
    return {
      id: m.id,
      name: m.name,
      kind: m.kind,
      ...(m.description !== undefined ? { description: m.description } : {}),
      ...(m.settingsSchema !== undefined ? { settingsSchema: m.settingsSchema } : {}),
      inputs: m.inputs.map(port),
      outputs: m.outputs.map(port),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    };
  }
}
