import type { TemplateProvider } from './flow-template';

/** Templates bundled with flow-runtime itself. */
export const bundledTemplates: TemplateProvider = {
  source: 'flow',
  priority: -100,
  list: () => BUNDLED,
};

const BUNDLED = [
  {
    id: 'flow/echo',
    name: 'Echo',
    description: 'Renders a greeting from the input and returns it: the smallest runnable flow.',
    source: 'flow',
    tags: ['starter', 'example'],
    document: {
      name: 'Echo',
      description: 'Renders a greeting from the input and returns it.',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' as const },
        { id: 'render', name: 'Render', kind: 'action' as const, action_ref: 'svc/template-render', config: { template: 'Hello, {{input.name}}!' } },
        { id: 'end', name: 'End', kind: 'end' as const },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'render' },
        { id: 'e2', from: 'render', to: 'end' },
      ],
      meta: { positions: { start: { x: 0, y: 0 }, render: { x: 240, y: 0 }, end: { x: 480, y: 0 } }, schemaVersion: 1 },
    },
  },
];
