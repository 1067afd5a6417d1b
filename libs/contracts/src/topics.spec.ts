import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ConsumerGroups,
  describeTopic,
  dlqTopic,
  entityTopic,
  FIXED_TOPICS,
  isDlqTopic,
  isEntityTopic,
  isFixedTopic,
  parseEntityTopic,
  topicOfDlq,
  Topics,
} from './topics';

// The wire names, written out literally so that an edit of topics.ts shows up as a test failure.
const SPEC_TOPICS = [
  'assistant.handoff_requested',
  'profiles.updated',
  'i18n.keys_changed',
  'i18n.updated',
  'i18n.translate.sweep',
  'content.translate.sweep',
  'content.page.changed',
  'content.fragment.changed',
  'email.send',
];
const OWN_TOPICS = ['deployments.changed', 'flows.published', 'llm.usage_recorded', 'settings.updated', 'platform.probe', 'platform.probe_ack', 'flows.engine.step', 'flows.engine.step_result'];

// The spec documents are kept in the repository (docs/spec, a copy of ../shared/spec).
const specDir = path.resolve(__dirname, '../../../docs/spec');

// Dotted names inside the Events sections that are not topics.
const NOT_TOPICS = new Set(['contributes.events', 'payload.kind']);

function topicsInSpecEvents(): Set<string> {
  const found = new Set<string>();
  for (const file of readdirSync(specDir).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(path.join(specDir, file), 'utf8');
    for (const section of text.split(/^## /m).filter((s) => s.startsWith('Events'))) {
      for (const m of section.matchAll(/(?<![\w./<{[])[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+(?![\w(])/g)) {
        if (!NOT_TOPICS.has(m[0])) found.add(m[0]);
      }
    }
  }
  return found;
}

describe('Topics', () => {
  it('holds exactly the spec topics plus our own three, each once', () => {
    expect([...FIXED_TOPICS].sort()).toEqual([...SPEC_TOPICS, ...OWN_TOPICS].sort());
    expect(new Set(FIXED_TOPICS).size).toBe(FIXED_TOPICS.length);
    expect(new Set(Object.keys(Topics)).size).toBe(FIXED_TOPICS.length);
  });

  it('names topics with lowercase dot-separated segments only', () => {
    for (const t of FIXED_TOPICS) expect(t).toMatch(/^[a-z0-9_]+(\.[a-z0-9_]+)+$/);
  });

  it('covers every topic named in the Events sections of docs/spec', () => {
    expect(existsSync(specDir)).toBe(true);
    const named = topicsInSpecEvents();
    expect(named.size).toBeGreaterThanOrEqual(SPEC_TOPICS.length);
    for (const t of named) expect(FIXED_TOPICS).toContain(t);
    const all = readdirSync(specDir)
      .map((f) => readFileSync(path.join(specDir, f), 'utf8'))
      .join('\n');
    for (const t of SPEC_TOPICS) expect(all).toContain(t);
    for (const pattern of ['<entity>.created', '<entity>.updated', '<entity>.deleted'])
      expect(all).toContain(pattern);
  });
});

describe('entityTopic', () => {
  it('builds <entity>.<action> for the three lifecycle actions', () => {
    expect(entityTopic('profile', 'created')).toBe('profile.created');
    expect(entityTopic('page', 'updated')).toBe('page.updated');
    expect(entityTopic('llm_usage', 'deleted')).toBe('llm_usage.deleted');
  });

  it('rejects names that are not a single lowercase identifier', () => {
    expect(() => entityTopic('Profile', 'created')).toThrow(/invalid entity name/);
    expect(() => entityTopic('content.page', 'created')).toThrow(/invalid entity name/);
    expect(() => entityTopic('', 'created')).toThrow(/invalid entity name/);
  });

  it('rejects an action outside created|updated|deleted', () => {
    expect(() => entityTopic('profile', 'changed' as 'created')).toThrow(/invalid lifecycle action/);
  });

  it('refuses to build a name that collides with a fixed topic', () => {
    expect(() => entityTopic('profiles', 'updated')).toThrow(/collides/);
  });

  it('recognises lifecycle topics without confusing them with fixed ones', () => {
    expect(isEntityTopic('profile.created')).toBe(true);
    expect(isEntityTopic('profiles.updated')).toBe(false);
    expect(isEntityTopic('content.page.changed')).toBe(false);
    expect(isEntityTopic('page.changed')).toBe(false);
    expect(parseEntityTopic('page.deleted')).toEqual({ entity: 'page', action: 'deleted' });
    expect(parseEntityTopic('email.send')).toBeUndefined();
    expect(isFixedTopic('email.send')).toBe(true);
    expect(isFixedTopic('page.created')).toBe(false);
  });
});

describe('dead-letter topics', () => {
  it('appends .dlq and maps back', () => {
    expect(dlqTopic(Topics.ProfilesUpdated)).toBe('profiles.updated.dlq');
    expect(isDlqTopic('profiles.updated.dlq')).toBe(true);
    expect(isDlqTopic('profiles.updated')).toBe(false);
    expect(topicOfDlq('email.send.dlq')).toBe('email.send');
    expect(topicOfDlq('email.send')).toBeUndefined();
  });

  it('never nests dead-letter topics', () => {
    expect(() => dlqTopic('email.send.dlq')).toThrow(/already a dead-letter topic/);
  });
});

describe('describeTopic', () => {
  it('gives the entity type and action the spec fixes for the handoff event', () => {
    expect(describeTopic(Topics.AssistantHandoffRequested)).toEqual({
      entityType: 'assistant_handoff',
      action: 'requested',
    });
  });

  it('splits the content sweep into event type and action', () => {
    expect(describeTopic(Topics.ContentTranslateSweep)).toEqual({
      entityType: 'content.translate',
      action: 'sweep',
    });
  });

  it('describes every fixed topic and lifecycle topics, and nothing else', () => {
    for (const t of FIXED_TOPICS) expect(describeTopic(t)).toBeDefined();
    expect(describeTopic('page.updated')).toEqual({ entityType: 'page', action: 'updated' });
    expect(describeTopic('nope')).toBeUndefined();
  });
});

describe('ConsumerGroups', () => {
  it('gives each worker its own profile invalidator group', () => {
    expect(ConsumerGroups.profilesInvalidator('pod-a')).toBe('profiles-invalidator-pod-a');
  });
});
