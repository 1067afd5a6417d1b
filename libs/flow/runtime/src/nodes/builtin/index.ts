import type { AssistantHandoffClient } from '@flowplane/contracts';
import type { NodeDefinition } from '@flowplane/flow/engine';
import { assistantHandoffNode } from './assistant-handoff.node';
import type { BusPublisher } from './bus-publisher';
import { chatWindowNode } from './chat-window.node';
import { emailSendNode } from './email-send.node';
import { emitEventNode } from './emit-event.node';
import { escalationDetectNode } from './escalation-detect.node';
import { eventSourceNode } from './event-source.node';
import { httpRequestNode, type ResolveAll } from './http-request.node';
import { routerNode } from './router.node';
import { templateRenderNode } from './template-render.node';

export interface BuiltinNodeDeps {
  bus: BusPublisher;
  /** The service environment, read on each request (`FLOW_HTTP_ALLOW_PRIVATE`). */
  env: Readonly<Record<string, string | undefined>>;
  resolve?: ResolveAll;
  /** The assistant's handoff client (`svc/assistant-handoff-request`), made on first use. */
  assistantHandoff?: () => AssistantHandoffClient;
}

/** The six built-in nodes of issue 4 item 6. */
export function builtinNodes(deps: BuiltinNodeDeps): NodeDefinition[] {
  return [
    eventSourceNode,
    templateRenderNode,
    routerNode,
    escalationDetectNode,
    chatWindowNode,
    emailSendNode(deps.bus),
    emitEventNode(deps.bus),
    httpRequestNode({ allowPrivate: () => deps.env['FLOW_HTTP_ALLOW_PRIVATE']?.trim().toLowerCase() === 'true', resolve: deps.resolve }),
    ...(deps.assistantHandoff ? [assistantHandoffNode(deps.assistantHandoff)] : []),
  ];
}
