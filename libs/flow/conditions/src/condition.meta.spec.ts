import { compileCondition, compileEventFilter, parseCondition, printCondition } from './index';

/** `meta.<path>` reads the `meta` object of the run's input (the assistant's default flow routes on `meta.intent`). */
describe('meta in the condition language', () => {
  const base = { port: 'out', output: { intent: 'chat' }, input: {} };

  it("parses the assistant's router condition as written and prints it back", () => {
    const parsed = parseCondition("meta.intent == 'handoff'");
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.ast).toEqual({
        type: 'binary',
        operator: '==',
        left: { type: 'field', root: 'meta', spelling: 'meta', path: ['intent'] },
        right: { type: 'literal', value: 'handoff' },
      });
      expect(printCondition(parsed.ast)).toBe('meta.intent == "handoff"');
    }
  });

  it('evaluates against the run input meta, not the packets', () => {
    const c = compileCondition("meta.intent == 'handoff'");
    expect(c.parseError).toBeUndefined();
    expect(c.evaluate({ ...base, meta: { intent: 'handoff' } })).toEqual({ value: true });
    expect(c.evaluate({ ...base, output: { intent: 'handoff' }, meta: { intent: 'chat' } }).value).toBe(false);
  });

  it('reads an absent meta, a missing field and a non-object meta as null', () => {
    expect(compileCondition('meta.intent == null').evaluate(base).value).toBe(true);
    expect(compileCondition('meta.intent == null').evaluate({ ...base, meta: {} }).value).toBe(true);
    expect(compileCondition('meta.intent == null').evaluate({ ...base, meta: 'x' }).value).toBe(true);
    expect(compileCondition('meta == null').evaluate(base).value).toBe(true);
  });

  it('reads nested paths and combines with the other variables', () => {
    const meta = { intent: 'handoff', contact: { email: 'a@b.co' }, tags: ['vip'] };
    expect(compileCondition('meta.contact.email != null && port == "out"').evaluate({ ...base, meta }).value).toBe(true);
    expect(compileCondition('meta.tags.0 == "vip"').evaluate({ ...base, meta }).value).toBe(true);
    expect(compileCondition('meta.a.b.c == null').evaluate({ ...base, meta }).value).toBe(true);
  });

  it('is not a variable of event filters, which read the event as payload', () => {
    expect(compileEventFilter('meta.intent == "x"').parseError).toMatch(/unknown variable 'meta'.*payload/);
  });

  it('names meta among the variables when a name is unknown', () => {
    const parsed = parseCondition('metadata.intent == "x"');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.message).toContain('meta.<path>');
  });
});
