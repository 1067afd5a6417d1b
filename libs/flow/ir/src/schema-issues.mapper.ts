import type { ErrorObject } from 'ajv';
import { FLOW_ISSUE_CODES, type FlowIssueCode } from './flow-issue.codes';
import type { ValidationIssue } from './flow-document';
import { escapePointerToken } from './json-pointer.util';

/** Overrides for one schema: a code for a path (for example `/flowdef` → UNSUPPORTED_VERSION). */
export interface SchemaIssueOverrides {
  codeForPath?: Record<string, FlowIssueCode>;
  /** Message for a missing field, keyed by field name. */
  missingFieldMessage?: Record<string, string>;
}

/**
 * Turns ajv errors (allErrors mode) into issues addressed at the offending field: a missing or
 * unknown field is reported at its own path rather than at its parent object.
 */
export function schemaIssues(errors: readonly ErrorObject[] | null | undefined, overrides: SchemaIssueOverrides = {}): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    // `if` only says that its `then` failed; the `then` error itself is reported.
    if (e.keyword === 'if') continue;
    const issue = toIssue(e, overrides);
    const key = `${issue.path}\u0000${issue.code}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}

function toIssue(e: ErrorObject, overrides: SchemaIssueOverrides): ValidationIssue {
  const params = e.params as Record<string, unknown>;
  let path = e.instancePath;
  let code: FlowIssueCode;
  let message: string;
  switch (e.keyword) {
    case 'required': {
      const field = String(params.missingProperty);
      path += '/' + escapePointerToken(field);
      code = FLOW_ISSUE_CODES.MISSING_FIELD;
      message = overrides.missingFieldMessage?.[field] ?? `missing required field "${field}"`;
      break;
    }
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      path += '/' + escapePointerToken(field);
      code = FLOW_ISSUE_CODES.UNKNOWN_FIELD;
      message = `unknown field "${field}"`;
      break;
    }
    case 'propertyNames': {
      code = FLOW_ISSUE_CODES.INVALID_VALUE;
      message = `invalid key "${String(params.propertyName)}"`;
      path += '/' + escapePointerToken(String(params.propertyName));
      break;
    }
    case 'type': {
      code = FLOW_ISSUE_CODES.INVALID_TYPE;
      message = `must be ${String(params.type).split(',').join(' or ')}`;
      break;
    }
    case 'enum': {
      code = FLOW_ISSUE_CODES.INVALID_VALUE;
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v));
      message = `must be one of ${allowed.join(', ')}`;
      break;
    }
    case 'const': {
      code = FLOW_ISSUE_CODES.INVALID_VALUE;
      message = `must be ${JSON.stringify(params.allowedValue)}`;
      break;
    }
    case 'minLength': {
      code = FLOW_ISSUE_CODES.INVALID_VALUE;
      message = params.limit === 1 ? 'must not be empty' : (e.message ?? 'is too short');
      break;
    }
    default:
      code = FLOW_ISSUE_CODES.INVALID_VALUE;
      message = e.message ?? `fails ${e.keyword}`;
  }
  const override = overrides.codeForPath?.[path];
  if (override && code !== FLOW_ISSUE_CODES.MISSING_FIELD) code = override;
  return { path, message, severity: 'error', code };
}
