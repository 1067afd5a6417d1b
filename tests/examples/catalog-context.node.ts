import type { NodeDefinition, NodeManifest } from '@flowplane/flow/engine';
import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';

/**
 * The domain-grounded chat pattern (rule 10), as a project writes it: a custom node placed before
 * the LLM node reads the latest user message, looks up the project's own data and writes onto the
 * packet `messages` (a system prompt listing the rows, then the user message), `sources` (links
 * shown under the reply) and `actions` (buttons). `svc/llm-chat` forwards `sources` and `actions`
 * unchanged, `svc/guard` passes the whole packet on Allow and Flag, and the assistant's relay emits
 * them in the `message` frame. Register it on the shared engine by id at startup:
 * `app.get<NodeRegistry>(NODE_REGISTRY).define(catalogContextNode.manifest, catalogContextNode.handler)`.
 */

interface Product {
  sku: string;
  name: string;
  price: string;
  url: string;
}

/** Stands in for the project's own data (a database query, a search index). */
const CATALOG: Product[] = [
  { sku: 'K-100', name: 'Steel kettle 1.7 l', price: '39 EUR', url: 'https://shop.example.com/p/K-100' },
  { sku: 'K-200', name: 'Glass kettle 1.5 l', price: '45 EUR', url: 'https://shop.example.com/p/K-200' },
  { sku: 'T-300', name: 'Two-slice toaster', price: '29 EUR', url: 'https://shop.example.com/p/T-300' },
];

export const CATALOG_CONTEXT_ID = 'shop/catalog-context';

const manifest: NodeManifest = {
  id: CATALOG_CONTEXT_ID,
  name: 'Catalog context',
  kind: 'action',
  description: 'Grounds the chat in the catalog: writes messages (system prompt with the matching products, then the user message), sources and actions.',
  settingsSchema: { $schema: SETTINGS_SCHEMA_DIALECT, type: 'object', properties: { limit: { type: 'integer', minimum: 1, default: 3, title: 'Products listed' } } },
  inputs: [{ port: 'in', description: 'The chat run input ({messages, sessionId, meta}).' }],
  outputs: [{ port: 'out', description: '{messages, sources, actions}' }],
};

function latestUserMessage(input: unknown): string {
  const messages = (input as { messages?: Array<{ role?: string; content?: unknown }> })?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user' && typeof messages[i].content === 'string') return messages[i].content as string;
  return '';
}

export const catalogContextNode: NodeDefinition = {
  manifest,
  handler: (ctx) => {
    const question = latestUserMessage(ctx.input);
    const words = question.toLowerCase().split(/\W+/).filter((w) => w.length > 2);
    const limit = typeof ctx.config['limit'] === 'number' ? ctx.config['limit'] : 3;
    const rows = CATALOG.filter((p) => words.some((w) => p.name.toLowerCase().includes(w))).slice(0, limit);
    const list = rows.map((p) => `- ${p.name} (${p.sku}), ${p.price}`).join('\n') || '- (no matching products)';
    const system = [
      'You are the shop assistant. Recommend only products from this list; if none fits, say so.',
      list,
      "Answer in the user's language.",
    ].join('\n');
    return {
      port: 'out',
      packet: {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: question },
        ],
        sources: rows.map((p) => ({ title: p.name, url: p.url })),
        actions: rows.map((p) => ({ label: `Add ${p.sku} to cart`, type: 'add_to_cart', sku: p.sku })),
      },
    };
  },
};
