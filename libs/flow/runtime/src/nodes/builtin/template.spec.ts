import { getPath, renderTemplate } from './template';
import { templateRenderHandler, templateRenderManifest } from './template-render.node';
import { nodeContext, single } from './test-context';

describe('renderTemplate', () => {
  const scope = { input: { name: 'Ada', tags: ['a', 'b'], n: 0, ok: false, nested: { deep: { x: 1 } }, nil: null }, meta: { user: 'u1' } };

  it.each([
    ['Hello, {{input.name}}!', 'Hello, Ada!'],
    ['{{ input.name }} / {{input.name}}', 'Ada / Ada'],
    ['{{input.missing}}|{{nope.a.b}}|{{input.nil}}', '||'],
    ['{{input.tags.1}}', 'b'],
    ['{{input.n}} {{input.ok}}', '0 false'],
    ['{{input.nested.deep}}', '{"x":1}'],
    ['{{meta.user}}', 'u1'],
    ['{{ input.name + 1 }}{{constructor}}{{input.__proto__}}{{input.name.constructor}}', ''],
    ['{{}} plain {text} {{', ' plain {text} {{'],
  ])('%s → %s', (template, expected) => {
    expect(renderTemplate(template, scope)).toBe(expected);
  });

  it('reads own properties only', () => {
    expect(getPath({ a: {} }, 'a.toString')).toBeUndefined();
    expect(getPath({ a: [1, 2] }, 'a.length')).toBe(2);
    expect(getPath('x', '')).toBe('x');
  });

  it('encodes inserted values when asked', () => {
    expect(renderTemplate('/q?x={{input.name}}', { input: { name: 'a b&c' } }, encodeURIComponent)).toBe('/q?x=a%20b%26c');
  });
});

describe('svc/template-render', () => {
  it('merges the rendered text into the packet under text', async () => {
    const out = await single(templateRenderHandler(nodeContext({ name: 'Ada', id: 7 }, { template: 'Hello, {{input.name}}! ({{packet.id}}, {{meta.lang}})' }, { meta: { lang: 'en' } })));
    expect(out).toEqual({ port: 'out', packet: { name: 'Ada', id: 7, text: 'Hello, Ada! (7, en)' } });
  });

  it('renders missing paths empty and honours target; a non-object input becomes {target}', async () => {
    expect((await single(templateRenderHandler(nodeContext({}, { template: 'Hi {{input.name}}.', target: 'greeting' })))).packet).toEqual({ greeting: 'Hi .' });
    expect((await single(templateRenderHandler(nodeContext('raw', { template: '[{{input}}]' })))).packet).toEqual({ text: '[raw]' });
  });

  it('does not mutate the input packet', async () => {
    const input = Object.freeze({ a: 1 });
    await single(templateRenderHandler(nodeContext(input, { template: 'x' })));
    expect(input).toEqual({ a: 1 });
  });

  it('declares its settings and ports', () => {
    expect(templateRenderManifest.settingsSchema?.required).toEqual(['template']);
    expect(templateRenderManifest.outputs.map((p) => p.port)).toEqual(['out']);
  });
});
