import type { FlowDocument, ValidationIssue } from './flow-document';
import { DEFAULT_MAX_NODES, toValidationResult, validateFlowDocument, type FlowValidationOptions, type FlowValidationResult } from './flow-document.validator';
import { FLOW_ISSUE_CODES } from './flow-issue.codes';
import { isPointerPrefix, jsonPointer, pointerTokens } from './json-pointer.util';
import type { SpecDocument } from './spec-document';
import { SPEC_DOCUMENT_SCHEMA } from './spec-document.schema';
import { specToIrTraced, type SpecTrace } from './spec-form.converter';
import { lazySchema } from './schema.compiler';
import { schemaIssues } from './schema-issues.mapper';
import { isRecord } from './value.util';

/** Outcome of validating a form-B document; when ok, `ir` is its conversion to a flow document. */
export interface SpecValidationResult extends FlowValidationResult<SpecDocument> {
  ir?: FlowDocument;
}

const validateShape = lazySchema(SPEC_DOCUMENT_SCHEMA);

/**
 * Validates a form-B document: its own schema, then every IR rule on its conversion, with each
 * problem addressed in spec terms (`/nodes/<name>/operationId`, `/edges/0/x-condition`...).
 */
export function validateSpecDocument(doc: unknown, options: FlowValidationOptions = {}): SpecValidationResult {
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_NODES;
  if (isRecord(doc) && isRecord(doc.nodes)) {
    const count = Object.keys(doc.nodes).length;
    if (count > maxNodes) {
      const tooMany: ValidationIssue = { path: '/nodes', severity: 'error', code: FLOW_ISSUE_CODES.TOO_MANY_NODES, message: `the flow has ${count} nodes; at most ${maxNodes} are allowed` };
      return { ok: false, errors: [tooMany], warnings: [] };
    }
  }
  const validate = validateShape();
  const issues = validate(doc) ? [] : schemaIssues(validate.errors, { codeForPath: { '/flowdef': FLOW_ISSUE_CODES.UNSUPPORTED_VERSION } });
  if (!isRecord(doc)) return toValidationResult<SpecDocument>(doc, issues);

  const { doc: ir, trace } = specToIrTraced(doc);
  const irResult = validateFlowDocument(ir, options);
  const specIssues = [...issues];
  for (const irIssue of [...irResult.errors, ...irResult.warnings]) {
    const path = specPathOf(irIssue.path, trace);
    // A field the spec schema already rejected would only be reported twice.
    if (specIssues.some((s) => isPointerPrefix(s.path, path))) continue;
    issues.push({ ...irIssue, path });
  }
  const out: SpecValidationResult = toValidationResult<SpecDocument>(doc, issues);
  if (out.ok) out.ir = ir;
  return out;
}

const NODE_FIELDS: Record<string, [extension: string, plain: string | undefined]> = {
  id: ['x-id', undefined],
  name: ['x-name', undefined],
  kind: ['x-kind', 'kind'],
  action_ref: ['x-action-ref', 'operationId'],
};
const EDGE_FIELDS: Record<string, string[]> = {
  id: ['x-id'],
  condition: ['x-condition'],
  port: ['x-port'],
  delivery_mode: ['delivery', 'mode'],
};

/** Translates the path of an issue found in the converted IR into the spec document it came from. */
function specPathOf(irPath: string, trace: SpecTrace): string {
  const [head, ...rest] = pointerTokens(irPath);
  switch (head) {
    case undefined:
      return '';
    case 'id':
      return jsonPointer('x-id', ...rest);
    case 'name':
      return trace.nameFromExtension ? jsonPointer('x-name') : jsonPointer('info', 'title');
    case 'description':
      return jsonPointer('info', 'description');
    case 'nodes': {
      if (rest.length === 0) return '/nodes';
      const key = trace.nodeKeys[Number(rest[0])];
      if (key === undefined) return irPath;
      const [field, ...tail] = rest.slice(1);
      if (field === undefined) return jsonPointer('nodes', key);
      if (field === 'description') return jsonPointer('nodes', key, 'summary', ...tail);
      if (field === 'config') return jsonPointer('nodes', key, 'x-config', ...tail);
      const mapped = NODE_FIELDS[field];
      if (!mapped) return jsonPointer('nodes', key, field, ...tail);
      const [extension, plain] = mapped;
      if (trace.nodeExtensions[Number(rest[0])].has(extension)) return jsonPointer('nodes', key, extension, ...tail);
      // The value came from the map key (id, name) or from the plain form-B field.
      return plain === undefined ? jsonPointer('nodes', key) : jsonPointer('nodes', key, plain, ...tail);
    }
    case 'edges': {
      if (rest.length < 2) return irPath;
      const [index, field, ...tail] = rest;
      return jsonPointer('edges', index, ...(EDGE_FIELDS[field] ?? [field]), ...tail);
    }
    case 'meta': {
      const [key, ...tail] = rest;
      if (key === undefined) return '/x-meta';
      if (key === 'positions' && tail.length > 0 && trace.keyById.has(tail[0])) {
        return jsonPointer('nodes', trace.keyById.get(tail[0]) as string, 'x-position', ...tail.slice(1));
      }
      if (!trace.metaFromExtension.has(key)) {
        if (key === 'packets') return jsonPointer('components', 'packets', ...tail);
        if (key === 'servers') return jsonPointer('servers', ...tail);
        if (key === 'version') return jsonPointer('info', 'version', ...tail);
      }
      return jsonPointer('x-meta', key, ...tail);
    }
    default:
      return irPath;
  }
}
