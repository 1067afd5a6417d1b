import type { JsonSchema } from './flow-document';
import { hasOwn, isRecord } from './value.util';

/** How deep nested `properties` and `items` are compared. */
const MAX_DEPTH = 8;

/**
 * Where an edge's packet schema and a port schema cannot describe the same packets (spec "Rules:
 * templates" 5: a mismatch gives a validation warning). A structural check, not JSON Schema
 * containment: declared types that share no value, and required fields the other side does not
 * have. `role` says which side the port is: `produced` (an output port: a field the packet requires
 * must be one the port declares) or `expected` (an input port: a field the port requires must be
 * one the packet declares). An empty or untyped schema conflicts with nothing. Reasons name the
 * field by its dotted path.
 */
export function packetConflicts(packet: JsonSchema, port: JsonSchema, role: 'produced' | 'expected'): string[] {
  const out: string[] = [];
  compare(packet, port, '', role, out, 0);
  return out;
}

function compare(packet: JsonSchema, port: JsonSchema, at: string, role: 'produced' | 'expected', out: string[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  const a = typesOf(packet);
  const b = typesOf(port);
  const where = at === '' ? 'the packet' : `field "${at}"`;
  if (a && b && !a.some((t) => b.some((u) => overlaps(t, u)))) {
    out.push(`${where} is ${a.join(' or ')} here but ${b.join(' or ')} on the port`);
    return;
  }
  const pa = isRecord(packet.properties) ? packet.properties : undefined;
  const pb = isRecord(port.properties) ? port.properties : undefined;
  if (pa && pb) {
    for (const [key, sub] of Object.entries(pa)) {
      if (hasOwn(pb, key) && isRecord(sub) && isRecord(pb[key])) compare(sub, pb[key] as JsonSchema, at ? `${at}.${key}` : key, role, out, depth + 1);
    }
  }
  // Which side promises fields the other must have.
  const [needs, has, needsOwner] = role === 'expected' ? [port, pa, 'the port'] : [packet, pb, 'the packet'];
  const hasSchema = role === 'expected' ? packet : port;
  const closedOrDeclared = has !== undefined && hasSchema.additionalProperties !== true && !isRecord(hasSchema.additionalProperties);
  if (Array.isArray(needs.required) && closedOrDeclared) {
    for (const key of needs.required) {
      if (typeof key === 'string' && !hasOwn(has, key)) out.push(`${needsOwner} requires field "${at ? `${at}.${key}` : key}", which ${role === 'expected' ? 'the packet' : 'the port'} does not declare`);
    }
  }
  if (isRecord(packet.items) && isRecord(port.items)) compare(packet.items, port.items, `${at}[]`, role, out, depth + 1);
}

function typesOf(schema: JsonSchema): string[] | undefined {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t) && t.every((x) => typeof x === 'string')) return t as string[];
  return undefined;
}

function overlaps(a: string, b: string): boolean {
  return a === b || (a === 'integer' && b === 'number') || (a === 'number' && b === 'integer');
}
