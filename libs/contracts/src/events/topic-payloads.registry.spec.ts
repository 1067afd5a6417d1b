import { entityTopic, FIXED_TOPICS, type FixedTopic, Topics } from '../topics';
import type { DeploymentsChangedPayload } from './deployments-changed.event';
import { EntityLifecyclePayload } from './entity-lifecycle.event';
import {
  EventPayloadValidationError,
  payloadClassFor,
  type TopicPayloads,
  UnknownTopicError,
  validateEventPayload,
} from './topic-payloads.registry';

type Fixture<T> = { valid: T; required: readonly (keyof T & string)[] };

// One valid payload per topic plus the fields the contract requires. The mapped type makes this table
// fail to compile when a topic is added without a fixture.
const FIXTURES: { [T in FixedTopic]: Fixture<TopicPayloads[T]> } = {
  'assistant.handoff_requested': {
    valid: {
      handoffId: '665f1c2ab3e4d5f6a7b8c9d0',
      chatId: '665f1c2ab3e4d5f6a7b8c9d1',
      sessionId: 's-1',
      userId: 'alice',
      email: 'alice@example.com',
      phone: '+48 600 000 000',
      reason: 'wants a human',
      priority: 'high',
      transcript: 'user: hi\nassistant: hello',
      requestedAt: '2025-01-02T03:04:05Z',
    },
    required: ['handoffId', 'chatId', 'sessionId', 'email', 'priority', 'transcript', 'requestedAt'],
  },
  'profiles.updated': {
    valid: { module: 'llm', kind: 'llm-chat', profileId: 'openai-main', action: 'updated' },
    required: ['module', 'kind', 'profileId', 'action'],
  },
  'i18n.keys_changed': {
    valid: { keys: ['checkout.pay', 'checkout.cancel'], ns: 'ui', reason: 'added' },
    required: ['keys'],
  },
  'i18n.updated': {
    valid: { ns: 'ui', locale: 'pl', keys: ['checkout.pay'], all: false, instanceId: 'i18n-0' },
    required: ['all'],
  },
  'i18n.translate.sweep': {
    valid: { firedAt: '2025-01-02T03:30:00Z', scheduleId: 'i18n-translate-sweep' },
    required: ['firedAt'],
  },
  'content.translate.sweep': {
    valid: { firedAt: '2025-01-02T03:30:00+00:00', scheduleId: 'content-translate-sweep', budget: 200 },
    required: ['firedAt'],
  },
  'content.page.changed': {
    valid: { type: 'page', id: 'terms', slug: 'terms', action: 'updated', source_changed: true },
    required: ['type', 'id', 'slug', 'action', 'source_changed'],
  },
  'content.fragment.changed': {
    valid: { type: 'fragment', id: 'footer', key: 'footer', action: 'created', source_changed: false },
    required: ['type', 'id', 'key', 'action', 'source_changed'],
  },
  'email.send': {
    valid: {
      to: ['ops@example.com'],
      subject: 'Handoff requested',
      text: 'A customer asked for a human.',
      correlationId: 'h-1',
    },
    required: ['to', 'subject', 'text'],
  },
  'deployments.changed': {
    valid: {
      deploymentId: 'route-get-orders',
      action: 'updated',
      kind: 'route',
      disabled: false,
      revision: 3,
      changedFields: ['variants'],
      variants: [
        { label: 'stable', flowId: 'f-1', weight: 90 },
        { label: 'canary', flowId: 'f-2', versionId: 'v-7', weight: 10 },
      ],
      labels: { 'x-route': 'GET /orders', 'tag:shop': '' },
      stickyBy: 'session_id',
    },
    required: ['deploymentId', 'action', 'kind', 'disabled', 'revision'],
  },
  'settings.updated': { valid: { module: 'site', keys: ['name'] }, required: ['module', 'keys'] },
  'platform.probe': { valid: { probeId: 'p-1', from: 'gateway' }, required: ['probeId', 'from'] },
  'platform.probe_ack': { valid: { probeId: 'p-1', service: 'profiles', pid: 42 }, required: ['probeId', 'service'] },
  'flows.engine.step': {
    valid: { stepId: 's-1', originId: 'e-1', runId: 'r-1', versionId: 'f@v1', nodeId: 'render', edgeId: 'e1', packet: { a: 1 }, meta: {}, step: 2 },
    required: ['stepId', 'originId', 'runId', 'versionId', 'nodeId', 'edgeId', 'meta', 'step'],
  },
  'flows.engine.step_result': {
    valid: { stepId: 's-1', originId: 'e-1', runId: 'r-1', consumerId: 'e-2', events: [{ type: 'node.started', data: {}, time: 1 }], outcome: { kind: 'outputs', outputs: [] } },
    required: ['stepId', 'originId', 'runId', 'consumerId', 'events', 'outcome'],
  },
  'flows.published': {
    valid: {
      flowId: 'f-1',
      versionId: 'v-2',
      previousVersionId: 'v-1',
      publishedAt: '2025-01-02T03:04:05.123Z',
      reason: 'publish',
      templateId: 'assistant/handoff-notification',
      entry: { kind: 'event', eventName: 'assistant.handoff_requested', groupId: 'handoff-notification' },
      variants: [{ label: 'stable', versionId: 'v-2', weight: 100 }],
    },
    required: ['flowId', 'versionId', 'publishedAt'],
  },
  'llm.usage_recorded': {
    valid: {
      usageId: 'u-1',
      recordedAt: '2025-01-02T03:04:05Z',
      providerId: 'local',
      model: 'local-echo',
      promptTokens: 12,
      completionTokens: 30,
      totalTokens: 42,
      costUsd: 0,
      durationMs: 15,
      status: 'ok',
      profileId: 'default',
      flowId: 'assistant',
      runId: 'r-1',
      nodeId: 'chat',
      userId: 'alice',
      sessionId: 's-1',
      variantLabel: 'stable',
    },
    required: [
      'usageId',
      'recordedAt',
      'providerId',
      'model',
      'promptTokens',
      'completionTokens',
      'totalTokens',
      'status',
    ],
  },
};

function without(obj: object, key: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...obj };
  delete copy[key];
  return copy;
}

function issuePaths(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof EventPayloadValidationError) return e.issues.map((i) => i.path);
    throw e;
  }
  throw new Error('expected the payload to be rejected');
}

describe.each(FIXED_TOPICS.map((t) => [t] as const))('payload of %s', (topic) => {
  const fixture = FIXTURES[topic] as Fixture<object>;

  it('has a registered payload class', () => {
    expect(payloadClassFor(topic)).toBeDefined();
  });

  it('accepts a valid payload after a JSON round trip and returns an instance of the class', () => {
    const wire = JSON.parse(JSON.stringify(fixture.valid));
    const value = validateEventPayload(topic, wire);
    expect(value).toBeInstanceOf(payloadClassFor(topic));
    expect(JSON.parse(JSON.stringify(value))).toEqual(wire);
  });

  it.each(fixture.required.map((f) => [f]))('rejects a payload without %s', (field) => {
    expect(issuePaths(() => validateEventPayload(topic, without(fixture.valid, field)))).toContain(field);
  });

  it('rejects an empty object', () => {
    expect(() => validateEventPayload(topic, {})).toThrow(EventPayloadValidationError);
  });

  it('rejects non-object payloads', () => {
    for (const bad of [null, 'x', 42, [fixture.valid]]) {
      expect(() => validateEventPayload(topic, bad)).toThrow(/payload must be a JSON object/);
    }
  });

  it('strips unknown properties instead of rejecting them (tolerant reader)', () => {
    const value = validateEventPayload(topic, {
      ...fixture.valid,
      addedByNewerProducer: 1,
    }) as unknown as Record<string, unknown>;
    expect(value.addedByNewerProducer).toBeUndefined();
  });
});

describe('field rules', () => {
  const handoff = FIXTURES['assistant.handoff_requested'].valid;

  it('accepts an empty chatId (no chat exists) but not an empty sessionId', () => {
    expect(() =>
      validateEventPayload(Topics.AssistantHandoffRequested, { ...handoff, chatId: '' }),
    ).not.toThrow();
    expect(
      issuePaths(() => validateEventPayload(Topics.AssistantHandoffRequested, { ...handoff, sessionId: '' })),
    ).toEqual(['sessionId']);
  });

  it('limits the handoff priority to low, normal and high', () => {
    expect(
      issuePaths(() =>
        validateEventPayload(Topics.AssistantHandoffRequested, { ...handoff, priority: 'urgent' }),
      ),
    ).toEqual(['priority']);
  });

  it('requires an RFC 3339 requestedAt and a real email', () => {
    expect(
      issuePaths(() =>
        validateEventPayload(Topics.AssistantHandoffRequested, {
          ...handoff,
          requestedAt: 'yesterday',
          email: 'nope',
        }),
      ).sort(),
    ).toEqual(['email', 'requestedAt']);
  });

  it('accepts an email with only an html body and rejects one with neither body', () => {
    const mail = { to: ['a@example.com'], subject: 's' };
    expect(() => validateEventPayload(Topics.EmailSend, { ...mail, html: '<p>hi</p>' })).not.toThrow();
    expect(issuePaths(() => validateEventPayload(Topics.EmailSend, mail))).toContain('text');
    expect(
      issuePaths(() => validateEventPayload(Topics.EmailSend, { ...mail, to: [], text: 't' })),
    ).toContain('to');
  });

  it('rejects an empty key list on i18n.keys_changed', () => {
    expect(issuePaths(() => validateEventPayload(Topics.I18nKeysChanged, { keys: [] }))).toContain('keys');
  });

  it('validates nested deployment variants and reports their path', () => {
    const base = FIXTURES['deployments.changed'].valid;
    const paths = issuePaths(() =>
      validateEventPayload(Topics.DeploymentsChanged, {
        ...base,
        variants: [{ label: 'stable', flowId: 'f', weight: -1 }],
      }),
    );
    expect(paths).toEqual(['variants.0.weight']);
    const value = validateEventPayload(Topics.DeploymentsChanged, base) as DeploymentsChangedPayload;
    expect(value.variants?.[1]?.versionId).toBe('v-7');
  });

  it('rejects label maps with non-string values', () => {
    const base = FIXTURES['deployments.changed'].valid;
    expect(
      issuePaths(() => validateEventPayload(Topics.DeploymentsChanged, { ...base, labels: { a: 1 } })),
    ).toEqual(['labels']);
  });

  it('rejects negative or fractional token counts', () => {
    const base = FIXTURES['llm.usage_recorded'].valid;
    expect(
      issuePaths(() =>
        validateEventPayload(Topics.LlmUsageRecorded, { ...base, promptTokens: -1, totalTokens: 1.5 }),
      ).sort(),
    ).toEqual(['promptTokens', 'totalTokens']);
  });
});

describe('lifecycle topics', () => {
  it('use the entity lifecycle payload carrying the entity id', () => {
    const topic = entityTopic('page', 'updated');
    expect(payloadClassFor(topic)).toBe(EntityLifecyclePayload);
    expect(validateEventPayload(topic, { id: 'p-1', changedFields: ['title'] })).toEqual({
      id: 'p-1',
      changedFields: ['title'],
    });
    expect(issuePaths(() => validateEventPayload('page.deleted', {}))).toEqual(['id']);
  });

  it('keep the fixed payload for profiles.updated even though it matches the pattern', () => {
    expect(payloadClassFor('profiles.updated')).toBe(payloadClassFor(Topics.ProfilesUpdated));
    expect(payloadClassFor('profiles.updated')).not.toBe(EntityLifecyclePayload);
  });
});

describe('unknown topics', () => {
  it('have no payload class and cannot be validated', () => {
    expect(payloadClassFor('nobody.listens.here')).toBeUndefined();
    expect(() => validateEventPayload('nobody.listens.here', {})).toThrow(UnknownTopicError);
  });
});
