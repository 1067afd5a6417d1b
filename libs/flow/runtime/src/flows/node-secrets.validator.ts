import {
  DECLARED_PROFILE_KINDS,
  declaredSecretEndpointFields,
  declaredSensitiveProfileKeys,
  endpointOverrideMessage,
  endpointOverrides,
  presentInNode,
  ProfileNotFoundError,
  type ProfileResolver,
  secretsHeld,
} from '@flowplane/contracts';
import { interpretConfig, overridableKeys, profileSelectors } from '@flowplane/flow/engine';
import type { FlowDocument } from '@flowplane/flow/ir';
import type { NodeCatalog } from './node-catalog';

/** Why a node's config is refused. */
export type NodeSecretProblemCode = 'PROFILE_ENDPOINT_OVERRIDE' | 'SECRET_IN_NODE_CONFIG' | 'CREDENTIALS_IN_URL';

/** One refused config value of one node. */
export interface NodeSecretProblem {
  /** Index of the node in `document.nodes`. */
  index: number;
  nodeId: string;
  /** The config key. */
  key: string;
  code: NodeSecretProblemCode;
  message: string;
}

// Fields the declared kinds type as URLs, plus the name every LLM node uses for its endpoint.
const URL_KEYS = new Set(['baseURL', ...DECLARED_PROFILE_KINDS.flatMap((k) => k.fields.filter((f) => f.type === 'url').map((f) => f.key))]);

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function hasCredentials(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value.trim());
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

/**
 * What flow version save and publish refuse in node configs, so that secrets live only in profiles
 * and a profile's secret only goes to the endpoint stored with it:
 *
 * - a value for a key some profile kind marks sensitive (`apiKey`) that the node's own settings do
 *   not declare: a flow document is readable by every flow editor, a profile's secret is not;
 * - credentials inside a URL field (`https://user:pass@host`), for the same reason;
 * - an endpoint override (`baseURL`, `providerID`) on a node whose selected profile holds a secret
 *   (the rule of `endpointOverrides` in contracts, which the engine applies again at run time).
 *
 * The profile is read through the service's ProfileResolver (flow-runtime's own service token), so
 * the check works for an editor who may not read profiles. A missing profile is not this check's
 * concern (the run reports it); an unreachable profiles service is a 503.
 */
export class NodeSecretsValidator {
  private readonly sensitiveKeys = declaredSensitiveProfileKeys();

  constructor(
    private readonly catalog: NodeCatalog,
    private readonly profiles?: Pick<ProfileResolver, 'resolve'>,
  ) {}

  async check(document: FlowDocument): Promise<NodeSecretProblem[]> {
    const problems: NodeSecretProblem[] = [];
    const nodes = Array.isArray(document?.nodes) ? document.nodes : [];
    for (let index = 0; index < nodes.length; index++) {
      const node = nodes[index];
      const raw = node?.config;
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) continue;
      const schema = node.action_ref ? this.catalog.get(node.action_ref)?.manifest.settingsSchema : undefined;
      const declared = schema?.properties ?? {};
      const selectors = profileSelectors(schema);
      const add = (key: string, code: NodeSecretProblemCode, message: string) => problems.push({ index, nodeId: node.id, key, code, message });

      for (const [key, value] of Object.entries(raw)) {
        if (URL_KEYS.has(key) && hasCredentials(value)) {
          add(key, 'CREDENTIALS_IN_URL', `${key} must not contain credentials (user:password@): keep keys in a profile and select it in the node`);
        }
        const kinds = this.sensitiveKeys.get(key);
        if (kinds && !isBlank(value) && !Object.prototype.hasOwnProperty.call(declared, key)) {
          const where = kinds.map((k) => `${k.id} (PUT /api/v1/admin/profiles/${k.module}/${k.id}/{id})`).join(' or ');
          const selector = selectors.find((s) => kinds.some((k) => k.id === s.kind && k.module === s.module));
          add(
            key,
            'SECRET_IN_NODE_CONFIG',
            `${key} is a secret and is never stored in a flow: put it in a profile of kind ${where} and select that profile${selector ? ` in the node's ${JSON.stringify(selector.key)} setting` : ''}`,
          );
        }
      }

      if (selectors.length === 0 || !this.profiles) continue;
      const config = interpretConfig(schema, raw).config;
      const overridable = overridableKeys(schema);
      for (const selector of selectors) {
        const fields = declaredSecretEndpointFields(selector.module, selector.kind);
        // Only a value that would win over the profile's needs the profile read.
        if (!fields || !fields.endpoint.some((k) => presentInNode(k, config[k], overridable))) continue;
        const selected = config[selector.key];
        const profileId = typeof selected === 'string' ? selected.trim() : typeof selected === 'number' ? String(selected) : '';
        if (profileId === '') continue;
        let values: Readonly<Record<string, unknown>>;
        try {
          values = (await this.profiles.resolve(selector.module, selector.kind, profileId)).config;
        } catch (error) {
          if (error instanceof ProfileNotFoundError) continue;
          throw error;
        }
        const keys = endpointOverrides(fields, values, config, { overridable });
        if (keys.length === 0) continue;
        const message = endpointOverrideMessage({ module: selector.module, kind: selector.kind, profileId }, keys, secretsHeld(fields, values));
        for (const key of keys) add(key, 'PROFILE_ENDPOINT_OVERRIDE', message);
      }
    }
    return problems;
  }
}
