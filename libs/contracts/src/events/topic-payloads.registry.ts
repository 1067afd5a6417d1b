import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { type EntityTopic, type FixedTopic, isEntityTopic, isFixedTopic } from '../topics';
import { AssistantHandoffRequestedPayload } from './assistant-handoff-requested.event';
import { ContentFragmentChangedPayload, ContentPageChangedPayload } from './content-changed.event';
import { DeploymentsChangedPayload } from './deployments-changed.event';
import { EmailSendPayload } from './email-send.event';
import { EntityLifecyclePayload } from './entity-lifecycle.event';
import { FlowsEngineStepPayload, FlowsEngineStepResultPayload } from './flows-engine.event';
import { FlowsPublishedPayload } from './flows-published.event';
import { I18nKeysChangedPayload } from './i18n-keys-changed.event';
import { I18nUpdatedPayload } from './i18n-updated.event';
import { LlmUsageRecordedPayload } from './llm-usage-recorded.event';
import { PlatformProbeAckPayload, PlatformProbePayload } from './platform-probe.event';
import { ProfilesUpdatedPayload } from './profiles-updated.event';
import { SettingsUpdatedPayload } from './settings-updated.event';
import { ContentTranslateSweepPayload, I18nTranslateSweepPayload } from './translate-sweep.event';

/** Payload type of every fixed topic. */
export interface TopicPayloads {
  'assistant.handoff_requested': AssistantHandoffRequestedPayload;
  'profiles.updated': ProfilesUpdatedPayload;
  'i18n.keys_changed': I18nKeysChangedPayload;
  'i18n.updated': I18nUpdatedPayload;
  'i18n.translate.sweep': I18nTranslateSweepPayload;
  'content.translate.sweep': ContentTranslateSweepPayload;
  'content.page.changed': ContentPageChangedPayload;
  'content.fragment.changed': ContentFragmentChangedPayload;
  'email.send': EmailSendPayload;
  'deployments.changed': DeploymentsChangedPayload;
  'flows.published': FlowsPublishedPayload;
  'llm.usage_recorded': LlmUsageRecordedPayload;
  'settings.updated': SettingsUpdatedPayload;
  'platform.probe': PlatformProbePayload;
  'platform.probe_ack': PlatformProbeAckPayload;
  'flows.engine.step': FlowsEngineStepPayload;
  'flows.engine.step_result': FlowsEngineStepResultPayload;
}

/** Any topic with a known payload: a fixed topic or a `<entity>.<action>` lifecycle topic. */
export type TopicName = FixedTopic | EntityTopic;

// Fixed topics are checked first: `profiles.updated` also matches the `${string}.updated` pattern.
/** Payload type of a topic. */
export type PayloadOf<T extends string> = T extends keyof TopicPayloads
  ? TopicPayloads[T]
  : T extends EntityTopic
    ? EntityLifecyclePayload
    : never;

/** Constructor of a payload class. */
export type PayloadClass<T extends object = object> = new () => T;

// The mapped type makes the compiler fail when a fixed topic has no payload class.
const PAYLOAD_CLASSES: { readonly [T in FixedTopic]: PayloadClass<TopicPayloads[T]> } = {
  'assistant.handoff_requested': AssistantHandoffRequestedPayload,
  'profiles.updated': ProfilesUpdatedPayload,
  'i18n.keys_changed': I18nKeysChangedPayload,
  'i18n.updated': I18nUpdatedPayload,
  'i18n.translate.sweep': I18nTranslateSweepPayload,
  'content.translate.sweep': ContentTranslateSweepPayload,
  'content.page.changed': ContentPageChangedPayload,
  'content.fragment.changed': ContentFragmentChangedPayload,
  'email.send': EmailSendPayload,
  'deployments.changed': DeploymentsChangedPayload,
  'flows.published': FlowsPublishedPayload,
  'llm.usage_recorded': LlmUsageRecordedPayload,
  'settings.updated': SettingsUpdatedPayload,
  'platform.probe': PlatformProbePayload,
  'platform.probe_ack': PlatformProbeAckPayload,
  'flows.engine.step': FlowsEngineStepPayload,
  'flows.engine.step_result': FlowsEngineStepResultPayload,
};

/** The payload class of a topic. */
export function payloadClassFor<T extends TopicName>(topic: T): PayloadClass<PayloadOf<T>>;
/** The payload class of a topic, or undefined when the topic is unknown. */
export function payloadClassFor(topic: string): PayloadClass | undefined;
export function payloadClassFor(topic: string): PayloadClass | undefined {
  if (isFixedTopic(topic)) return PAYLOAD_CLASSES[topic];
  if (isEntityTopic(topic)) return EntityLifecyclePayload;
  return undefined;
}

/** One failed constraint of a payload, addressed by a dotted property path. */
export interface EventPayloadIssue {
  /** Dotted path of the offending property (`variants.0.weight`); empty for the payload itself. */
  path: string;
  /** Human-readable messages of the failed constraints. */
  messages: string[];
}

/** Thrown when a payload does not match its topic's class; consumers park such messages on the DLQ. */
export class EventPayloadValidationError extends Error {
  constructor(
    readonly topic: string,
    readonly issues: readonly EventPayloadIssue[],
  ) {
    super(
      `invalid payload for ${topic}: ${issues.map((i) => `${i.path || '(payload)'}: ${i.messages.join(', ')}`).join('; ')}`,
    );
    this.name = 'EventPayloadValidationError';
  }
}

/** Thrown when a topic has no payload class. */
export class UnknownTopicError extends Error {
  constructor(readonly topic: string) {
    super(`unknown topic: ${topic}`);
    this.name = 'UnknownTopicError';
  }
}

function flatten(errors: readonly ValidationError[], prefix = ''): EventPayloadIssue[] {
  const out: EventPayloadIssue[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) out.push({ path, messages: Object.values(e.constraints) });
    if (e.children?.length) out.push(...flatten(e.children, path));
  }
  return out;
}

/** Validates a received payload against its topic's class; returns the typed instance or throws. */
export function validateEventPayload<T extends TopicName>(topic: T, data: unknown): PayloadOf<T>;
/** Validates a received payload against its topic's class; returns the instance or throws. */
export function validateEventPayload(topic: string, data: unknown): object;
export function validateEventPayload(topic: string, data: unknown): object {
  const cls = payloadClassFor(topic);
  if (!cls) throw new UnknownTopicError(topic);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new EventPayloadValidationError(topic, [{ path: '', messages: ['payload must be a JSON object'] }]);
  }
  const instance = plainToInstance(cls, data);
  // Tolerant reader: unknown properties from a newer producer are stripped, not rejected, so adding an
  // optional field to a payload never breaks consumers that have not been redeployed yet.
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: false,
    forbidUnknownValues: true,
  });
  if (errors.length) throw new EventPayloadValidationError(topic, flatten(errors));
  return instance;
}
