import { escalationDetectHandler, escalationDetectManifest, withoutToken } from './escalation-detect.node';
import { nodeContext, single } from './test-context';

describe('svc/escalation-detect', () => {
  const meta = { session_id: 'sess-12345678', email: 'ann@example.com', source: 'assistant' };

  it('passes a reply without the token on Reply, unchanged', async () => {
    const input = { content: 'Refunds take 14 days.', sources: [{ n: 1 }] };
    const out = await single(escalationDetectHandler(nodeContext(input, {}, { meta })));
    expect(out).toEqual({ port: 'Reply', packet: input });
  });

  it('routes a reply with [[ESCALATE]] to Escalate without the token, with what a handoff needs', async () => {
    const input = { content: 'I will ask a colleague to help. [[ESCALATE]]', sources: [], actions: [] };
    const out = await single(escalationDetectHandler(nodeContext(input, {}, { meta })));
    expect(out.port).toBe('Escalate');
    expect(out.packet).toEqual({ content: 'I will ask a colleague to help.', sources: [], actions: [], escalated: true, sessionId: 'sess-12345678', reason: 'The assistant escalated the conversation to a person.', meta: { email: 'ann@example.com' } });
    expect(input.content).toContain('[[ESCALATE]]');
  });

  it('takes a custom token, text path and reason', async () => {
    const out = await single(escalationDetectHandler(nodeContext({ draft: { text: 'HUMAN! please' } }, { token: 'HUMAN!', textPath: 'draft.text', reason: 'asked' })));
    expect(out).toEqual({ port: 'Escalate', packet: { draft: { text: 'please' }, escalated: true, reason: 'asked', meta: {} } });
  });

  it('tidies the gap the token leaves and orders its settings', () => {
    expect(withoutToken('Sure [[ESCALATE]] .', '[[ESCALATE]]')).toBe('Sure.');
    expect(escalationDetectManifest.settingsSchema?.['x-ui']).toEqual({ order: ['token', 'textPath', 'reason'] });
  });
});
