import { parseRouteLabel, routeProblem } from '@flowplane/contracts';
import { parseCondition } from '@flowplane/flow/conditions';
import { Labels } from './deployment';

/** A label key: lower-case letters, digits and `. _ : / -` (so `tag:beta`, `x-route`, `team/owner`). */
export const LABEL_KEY = /^[a-z0-9._:/-]{1,128}$/;
/** A topic name as the bus and Kafka accept it (lower case here, as every platform topic is). */
export const TOPIC_NAME = /^[a-z0-9._-]{1,249}$/;
const MAX_LABEL_VALUE = 2000;

export interface LabelProblem {
  field: string;
  problem: string;
}

/**
 * What is wrong with a deployment's labels, checked before any flow or deployment is looked up:
 * keys, `x-route` (`METHOD /path`), `x-event` (a topic name) and `x-event-filter` (parses in the
 * condition language, with `payload.<path>`; the parser's message names the column).
 */
export function labelProblems(labels: Readonly<Record<string, string>>): LabelProblem[] {
  const problems: LabelProblem[] = [];
  for (const [key, value] of Object.entries(labels)) {
    if (!LABEL_KEY.test(key)) problems.push({ field: `labels.${key}`, problem: 'a label key is 1 to 128 lower-case letters, digits, ".", "_", ":", "/" or "-"' });
    if (value.length > MAX_LABEL_VALUE) problems.push({ field: `labels.${key}`, problem: `a label value is at most ${MAX_LABEL_VALUE} characters` });
  }
  const route = labels[Labels.route];
  if (route !== undefined) {
    const parsed = parseRouteLabel(route);
    const problem = parsed ? routeProblem(parsed) : 'expected "<METHOD> <path>", for example "POST /orders/{id}"';
    if (problem) problems.push({ field: `labels.${Labels.route}`, problem });
  }
  const event = labels[Labels.event];
  if (event !== undefined && !TOPIC_NAME.test(event)) {
    problems.push({ field: `labels.${Labels.event}`, problem: 'a topic name: 1 to 249 lower-case letters, digits, ".", "_" or "-"' });
  }
  const filter = labels[Labels.eventFilter];
  if (filter !== undefined && filter.trim() !== '') {
    const parsed = parseCondition(filter, { payload: true });
    if (!parsed.ok) problems.push({ field: `labels.${Labels.eventFilter}`, problem: parsed.error.message });
  }
  return problems;
}
