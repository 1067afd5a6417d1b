import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { declaredKindModule, type NodeManifest, type NodeRegistry, type SettingsProperty } from '@flowplane/flow/engine';
import { ServiceClients } from '@flowplane/platform/service';
import type { NodeManifestView } from './dto/node-manifest.view';
import { NODE_REGISTRY } from './nodes.tokens';
import { RemoteNodesService } from './remote/remote-nodes.service';

/** One profile as the profiles service's internal list route returns it. */
interface ProfileOption {
  profileId: string;
  name?: string;
}

/**
 * Lists registered manifests for the editor, with each profile selector (`x-profile-kind`) given an
 * `enum` of the profile ids that exist right now. Kinds are fetched once per listing; a kind that
 * cannot be listed (profiles down, unknown kind) gets `x-options-unavailable: true` instead, so the
 * editor falls back to a free text field rather than offering a stale or empty choice. Remote
 * nodes (registered by other services) are listed beside the built-ins with `remote: true` and the
 * registering service as `source`.
 */
@Injectable()
export class NodeListingService {
  private readonly logger = new Logger(NodeListingService.name);

  constructor(
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    private readonly clients: ServiceClients,
    @Optional() private readonly remote?: RemoteNodesService,
  ) {}

  async list(): Promise<NodeManifestView[]> {
    const manifests = this.registry.list();
    const kinds = new Set<string>();
    for (const m of manifests) for (const p of Object.values(m.settingsSchema?.properties ?? {})) if (p['x-profile-kind']) kinds.add(p['x-profile-kind']);
    const options = new Map<string, string[] | undefined>();
    await Promise.all([...kinds].map(async (k) => options.set(k, await this.profileIds(k))));
    return manifests.map((m) => this.view(m, options));
  }

  private view(manifest: NodeManifest, options: Map<string, string[] | undefined>): NodeManifestView {
    const view = structuredClone(manifest) as unknown as NodeManifestView;
    const properties = (view.settingsSchema?.['properties'] ?? {}) as Record<string, SettingsProperty & Record<string, unknown>>;
    for (const property of Object.values(properties)) {
      const kind = property['x-profile-kind'];
      if (!kind) continue;
      const ids = options.get(kind);
      // JSON Schema forbids an empty enum: with no profiles yet the selector stays a plain string.
      if (ids?.length) property.enum = ids;
      else if (!ids) property['x-options-unavailable'] = true;
    }
    view.remote = this.remote?.isRemote(manifest.id) ?? false;
    if (view.remote) view.source = this.remote?.sourceOf(manifest.id);
    return view;
  }

  /** The profile ids of a `<kind>` or `<module>/<kind>` selector; undefined when they cannot be listed. */
  private async profileIds(selector: string): Promise<string[] | undefined> {
    const slash = selector.indexOf('/');
    const module = slash >= 0 ? selector.slice(0, slash) : declaredKindModule(selector);
    const kind = slash >= 0 ? selector.slice(slash + 1) : selector;
    if (!module) return undefined;
    try {
      const profiles = await this.clients
        .for('profiles')
        .get<ProfileOption[]>(`/internal/profiles/${encodeURIComponent(module)}/${encodeURIComponent(kind)}`);
      return Array.isArray(profiles) ? profiles.map((p) => p.profileId).filter((id): id is string => typeof id === 'string') : undefined;
    } catch (e) {
      this.logger.warn(`cannot list ${module}/${kind} profiles for node selectors: ${(e as Error).message}`);
      return undefined;
    }
  }
}
