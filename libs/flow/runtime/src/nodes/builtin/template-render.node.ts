import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { DEFAULT_PORT, type NodeDefinition, type NodeHandler, type NodeManifest } from '@flowplane/flow/engine';
import { renderTemplate } from './template';

/** Config of `svc/template-render`. */
export interface TemplateRenderConfig extends Record<string, unknown> {
  template: string;
  target?: string;
}

export const TEMPLATE_RENDER_ID = 'svc/template-render';

export const templateRenderManifest: NodeManifest = {
  id: TEMPLATE_RENDER_ID,
  name: 'Render template',
  kind: 'action',
  description:
    'Renders `template` against {input, packet, meta} (`{{ input.name }}`; `packet` is the same packet as `input`; a missing path renders empty) and emits the packet with the text stored under `target`: `{...input, [target]: text}` (a non-object input becomes `{[target]: text}`).',
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      template: {
        type: 'string',
        title: 'Template',
        description: 'Text with `{{ path }}` placeholders over input, packet and meta. No expressions or helpers.',
        'x-order': 1,
      },
      target: {
        type: 'string',
        title: 'Target field',
        description: 'Packet field that receives the rendered text.',
        default: 'text',
        'x-order': 2,
      },
    },
    required: ['template'],
    'x-ui': { order: ['template', 'target'] },
  },
  inputs: [{ port: 'in', description: 'Any packet; objects are carried over.', schema: {} }],
  outputs: [
    {
      port: DEFAULT_PORT,
      description: 'The input packet plus the rendered text under `target` (default `text`).',
      schema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: true },
    },
  ],
};

export const templateRenderHandler: NodeHandler = (ctx) => {
  const config = ctx.config as Readonly<TemplateRenderConfig>;
  const template = typeof config.template === 'string' ? config.template : '';
  const target = typeof config.target === 'string' && config.target.trim() !== '' ? config.target : 'text';
  const text = renderTemplate(template, { input: ctx.input, packet: ctx.input, meta: ctx.meta });
  const base = isPlainObject(ctx.input) ? ctx.input : {};
  return { port: DEFAULT_PORT, packet: { ...base, [target]: text } };
};

export const templateRenderNode: NodeDefinition = { manifest: templateRenderManifest, handler: templateRenderHandler };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
