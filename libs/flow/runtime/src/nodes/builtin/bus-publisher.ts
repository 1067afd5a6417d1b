import type { EventBus } from '@flowplane/platform/bus';
import type { ValidationError } from 'class-validator';

/** What the publishing nodes need from the bus. */
export type BusPublisher = Pick<EventBus, 'publish'>;

/** A packet a node refuses (the engine routes the thrown error to the node's `Error` port). */
export class NodeInputError extends Error {
  readonly code = 'NODE_INPUT_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'NodeInputError';
  }
}

/** `field: constraint; ...` from class-validator errors (nested ones flattened). */
export function describeValidationErrors(errors: ValidationError[], prefix = ''): string {
  return errors
    .flatMap((e) => {
      const field = prefix + e.property;
      const own = Object.values(e.constraints ?? {}).map((m) => `${field}: ${m}`);
      const nested = e.children?.length ? [describeValidationErrors(e.children, `${field}.`)] : [];
      return [...own, ...nested];
    })
    .join('; ');
}

/** Topic names: lowercase dot-separated segments, at least two (`orders.created`). */
export const TOPIC_PATTERN = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;
