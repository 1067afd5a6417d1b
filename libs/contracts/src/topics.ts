// ╔══════════════════════════════════════════════════════════════════════════════════════════╗
// ║  TOPIC NAMES ARE A WIRE CONTRACT.                                                          ║
// ║  They are exactly the names in ../shared/spec/*.md (plus our own three at the bottom).     ║
// ║  Producers, consumers, flow templates (`svc/event-source` eventName), consumer group       ║
// ║  offsets, dead-letter topics and the AsyncAPI description all key on these strings.        ║
// ║  Renaming one silently orphans every running subscriber and every stored flow that names   ║
// ║  it. NEVER rename or reuse a topic; add a new one and migrate consumers deliberately.      ║
// ╚══════════════════════════════════════════════════════════════════════════════════════════╝

/** Every fixed topic of the platform, keyed by a code-friendly name. */
export const Topics = {
  /** assistant-deployments-profiles.md, Events: a customer asked for a human. */
  AssistantHandoffRequested: 'assistant.handoff_requested',
  /** assistant-deployments-profiles.md, rule 22: every profile write; workers drop their cache. */
  ProfilesUpdated: 'profiles.updated',
  /** localization.md, automatic translation rule 4: the translation work signal. */
  I18nKeysChanged: 'i18n.keys_changed',
  /** localization.md, rule 4 and catalog rule 7: per-instance cache broadcast, never a work trigger. */
  I18nUpdated: 'i18n.updated',
  /** localization.md, rule 9: published by the seeded `i18n-translate-sweep` scheduler entry. */
  I18nTranslateSweep: 'i18n.translate.sweep',
  /** localization.md, settings rule 18: scheduler-driven content translation sweep. */
  ContentTranslateSweep: 'content.translate.sweep',
  /** localization.md, settings rule 11: a content page changed. */
  ContentPageChanged: 'content.page.changed',
  /** localization.md, settings rule 11: a content fragment changed. */
  ContentFragmentChanged: 'content.fragment.changed',
  /** assistant-deployments-profiles.md: emitted by the handoff-notification template. */
  EmailSend: 'email.send',

  // Our own topics (ARCHITECTURE §3), not named by the spec.
  /** A deployment was created, patched or deleted; flow-runtime re-syncs its bindings. */
  DeploymentsChanged: 'deployments.changed',
  /** A flow's publish pointer moved (publish, split publish, rollback, reset). */
  FlowsPublished: 'flows.published',
  /** One LLM call was recorded in the usage ledger. */
  LlmUsageRecorded: 'llm.usage_recorded',
  /** A module's stored settings changed (issue 3); readers of public settings drop their cache. */
  SettingsUpdated: 'settings.updated',
  /** The gateway's bus probe (POST /api/v1/admin/system/bus-probe); every service answers. */
  PlatformProbe: 'platform.probe',
  /** One service's answer to a bus probe. */
  PlatformProbeAck: 'platform.probe_ack',
  /** A step crossing a `durable` flow edge, run at least once by any flow-runtime replica. */
  FlowsEngineStep: 'flows.engine.step',
  /** The result of a durable step, read by the replica that owns the run. */
  FlowsEngineStepResult: 'flows.engine.step_result',
} as const;

/** Code-friendly key of a fixed topic. */
export type TopicKey = keyof typeof Topics;
/** One of the fixed topic names. */
export type FixedTopic = (typeof Topics)[TopicKey];

/** Every fixed topic name, in declaration order. */
export const FIXED_TOPICS: readonly FixedTopic[] = Object.freeze(Object.values(Topics));

// The lifecycle pattern of the search spec (rule 8a): a store announces `<entity>.created|updated|deleted`.
/** The three lifecycle actions of an entity store. */
export const ENTITY_ACTIONS = ['created', 'updated', 'deleted'] as const;
/** A lifecycle action. */
export type EntityAction = (typeof ENTITY_ACTIONS)[number];
/** A lifecycle topic, `<entity>.<action>`. */
export type EntityTopic<E extends string = string> = `${E}.${EntityAction}`;

// Entity names are single lowercase identifiers so a lifecycle topic never contains a second dot
// and can always be told apart from the fixed, multi-segment topics.
const ENTITY_NAME = /^[a-z][a-z0-9_]*$/;
const FIXED_TOPIC_SET: ReadonlySet<string> = new Set(FIXED_TOPICS);

/** Builds the lifecycle topic `<entity>.<action>`; rejects names that would collide with a fixed topic. */
export function entityTopic<E extends string, A extends EntityAction>(entity: E, action: A): `${E}.${A}` {
  if (!ENTITY_NAME.test(entity)) {
    throw new Error(
      `invalid entity name for a lifecycle topic: ${JSON.stringify(entity)} (expected ${ENTITY_NAME})`,
    );
  }
  if (!(ENTITY_ACTIONS as readonly string[]).includes(action)) {
    throw new Error(`invalid lifecycle action: ${JSON.stringify(action)}`);
  }
  const topic = `${entity}.${action}` as `${E}.${A}`;
  // `profiles.updated` is a fixed topic with its own payload; an entity named `profiles` would shadow it.
  if (FIXED_TOPIC_SET.has(topic)) {
    throw new Error(`lifecycle topic ${topic} collides with a fixed topic; use a singular entity name`);
  }
  return topic;
}

/** True for the fixed topics of the `Topics` object. */
export function isFixedTopic(topic: string): topic is FixedTopic {
  return FIXED_TOPIC_SET.has(topic);
}

/** True for `<entity>.created|updated|deleted` topics that are not fixed topics. */
export function isEntityTopic(topic: string): topic is EntityTopic {
  if (FIXED_TOPIC_SET.has(topic)) return false;
  const dot = topic.indexOf('.');
  if (dot < 0 || topic.indexOf('.', dot + 1) >= 0) return false;
  return (
    ENTITY_NAME.test(topic.slice(0, dot)) &&
    (ENTITY_ACTIONS as readonly string[]).includes(topic.slice(dot + 1))
  );
}

/** Splits a lifecycle topic into entity and action, or returns undefined for any other topic. */
export function parseEntityTopic(topic: string): { entity: string; action: EntityAction } | undefined {
  if (!isEntityTopic(topic)) return undefined;
  const [entity, action] = topic.split('.') as [string, EntityAction];
  return { entity, action };
}

/** Suffix of dead-letter topics (ARCHITECTURE §3: retry with backoff, then park on `<topic>.dlq`). */
export const DLQ_SUFFIX = '.dlq';

/** The dead-letter topic of a topic, `<topic>.dlq`. */
export function dlqTopic<T extends string>(topic: T): `${T}.dlq` {
  if (isDlqTopic(topic)) throw new Error(`${topic} is already a dead-letter topic`);
  return `${topic}${DLQ_SUFFIX}`;
}

/** True when the topic is a dead-letter topic. */
export function isDlqTopic(topic: string): boolean {
  return topic.endsWith(DLQ_SUFFIX) && topic.length > DLQ_SUFFIX.length;
}

/** The topic a dead-letter topic parks messages of, or undefined when it is not a dead-letter topic. */
export function topicOfDlq(topic: string): string | undefined {
  return isDlqTopic(topic) ? topic.slice(0, -DLQ_SUFFIX.length) : undefined;
}

/** CloudEvents `entitytype` and `action` extensions announced with a topic. */
export interface TopicDescriptor {
  entityType: string;
  action: string;
}

// The spec fixes these for assistant.handoff_requested (entity type `assistant_handoff`, action `requested`)
// and content.translate.sweep ("event type plus action joined to this name"); the rest follow the same split.
const FIXED_TOPIC_DESCRIPTORS: Readonly<Record<FixedTopic, TopicDescriptor>> = {
  'assistant.handoff_requested': { entityType: 'assistant_handoff', action: 'requested' },
  'profiles.updated': { entityType: 'profile', action: 'updated' },
  'i18n.keys_changed': { entityType: 'i18n_key', action: 'changed' },
  'i18n.updated': { entityType: 'i18n', action: 'updated' },
  'i18n.translate.sweep': { entityType: 'i18n.translate', action: 'sweep' },
  'content.translate.sweep': { entityType: 'content.translate', action: 'sweep' },
  'content.page.changed': { entityType: 'content.page', action: 'changed' },
  'content.fragment.changed': { entityType: 'content.fragment', action: 'changed' },
  'email.send': { entityType: 'email', action: 'send' },
  'deployments.changed': { entityType: 'deployment', action: 'changed' },
  'flows.published': { entityType: 'flow', action: 'published' },
  'llm.usage_recorded': { entityType: 'llm_usage', action: 'recorded' },
  'settings.updated': { entityType: 'settings', action: 'updated' },
  'platform.probe': { entityType: 'platform', action: 'probe' },
  'platform.probe_ack': { entityType: 'platform', action: 'probe_ack' },
  'flows.engine.step': { entityType: 'flows.engine', action: 'step' },
  'flows.engine.step_result': { entityType: 'flows.engine', action: 'step_result' },
};

/** The envelope `entitytype`/`action` of a fixed or lifecycle topic, or undefined for an unknown topic. */
export function describeTopic(topic: string): TopicDescriptor | undefined {
  if (isFixedTopic(topic)) return FIXED_TOPIC_DESCRIPTORS[topic];
  const parsed = parseEntityTopic(topic);
  return parsed ? { entityType: parsed.entity, action: parsed.action } : undefined;
}

/** Consumer group ids that the spec fixes (ARCHITECTURE §3: group ids are explicit). */
export const ConsumerGroups = {
  /** Fan-out group of the profile cache invalidator: one group per worker, so every worker sees every write. */
  profilesInvalidator: (hostname: string): string => `profiles-invalidator-${hostname}`,
} as const;
