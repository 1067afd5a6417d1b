import { Inject, Injectable } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { type Capabilities, capabilitiesOf } from '../../templates/domain/assistant-templates';
import { MODULE_FLOW_ID } from '../../templates/use-cases/ensure-module-flow.use-case';
import { UpstreamClients, type VariantRef } from '../../upstream/upstream.clients';
import { upstreamFailure } from '../../upstream/upstream.errors';

/** The config response (spec: Assistant config response) plus `maxMessageChars`. */
export interface AssistantConfig {
  flowId: string;
  flowName: string;
  handoffEnabled: boolean;
  anonymousAllowed: boolean;
  chatTtlDays: number;
  maxMessageChars: number;
  capabilities: Capabilities;
  activeVariant?: string;
}

/**
 * `GET /assistant/config`: what the widget may offer, from the published document of the variant's
 * flow (rule 3); with `sessionId`, the variant that session buckets into (rule 9), else the stable
 * one. The publish pointer is read on every call, so a reset or publish shows as soon as its call
 * returned; the capabilities are computed once per version.
 */
@Injectable()
export class ReadConfigUseCase {
  private readonly byVersion = new Map<string, { flowName: string; capabilities: Capabilities }>();

  constructor(
    private readonly upstream: UpstreamClients,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(sessionId?: string): Promise<AssistantConfig> {
    const env = this.config as ServiceConfig & AssistantEnv;
    let variant: VariantRef | undefined;
    try {
      if (sessionId) variant = await this.upstream.select(env.ASSISTANT_DEPLOYMENT_ID, { session_id: sessionId, sessionId });
      else {
        const d = await this.upstream.deployment(env.ASSISTANT_DEPLOYMENT_ID);
        // Without a session nothing is selected, but a chat could not start either: say so as select does.
        if (d && d.variants.length > 0 && d.variants.every((v) => !((v.weight ?? 0) > 0))) {
          throw new DomainException('NO_ELIGIBLE_VARIANT', 409, `deployment ${d.id} has no eligible variant: every variant has weight 0; give at least one a weight above 0 (PATCH /deployments/${d.id})`, { deploymentId: d.id });
        }
        variant = d?.variants.find((v) => v.label === 'stable');
      }
    } catch (e) {
      throw upstreamFailure(e, 'deployments');
    }
    const flowId = variant?.flowId ?? env.ASSISTANT_FLOW_ID ?? MODULE_FLOW_ID;
    const described = await this.described(flowId, variant?.versionId);
    // The widget reads capabilities.handoff: with the switch off it must not offer a form that answers 403.
    const capabilities: Capabilities = { ...described.capabilities, handoff: described.capabilities.handoff && env.ASSISTANT_HANDOFF_ENABLED };
    return {
      flowId,
      flowName: described.flowName,
      handoffEnabled: capabilities.handoff,
      anonymousAllowed: env.ASSISTANT_ANONYMOUS_ALLOWED,
      chatTtlDays: env.ASSISTANT_CHAT_TTL_DAYS,
      maxMessageChars: env.ASSISTANT_MAX_MESSAGE_CHARS,
      capabilities,
      ...(sessionId && variant ? { activeVariant: variant.label } : {}),
    };
  }

  private async described(flowId: string, versionId?: string): Promise<{ flowName: string; capabilities: Capabilities }> {
    let doc;
    try {
      [doc] = await this.upstream.documents([{ flowId, versionId }]);
    } catch (e) {
      throw upstreamFailure(e, 'flow-runtime');
    }
    if (!doc?.found || !doc.versionId) throw new DomainException('FLOW_NOT_PUBLISHED', 503, `the assistant's flow ${flowId} is not published`);
    let hit = this.byVersion.get(doc.versionId);
    if (!hit) {
      hit = { flowName: doc.name ?? flowId, capabilities: capabilitiesOf(doc.document) };
      if (this.byVersion.size > 500) this.byVersion.clear();
      this.byVersion.set(doc.versionId, hit);
    }
    return hit;
  }
}
