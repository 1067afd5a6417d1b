import { DomainException, type FieldProblem } from '@flowplane/platform/http';

/** Stable codes of the content routes' errors (the `code` field of the error body). */
export enum ContentExceptionCode {
  PageNotFound = 'CONTENT_PAGE_NOT_FOUND',
  FragmentNotFound = 'CONTENT_FRAGMENT_NOT_FOUND',
  /** A bad slug or key, a `$` field name, a malformed marker, data nested too deep; `details` names each. */
  InvalidInput = 'CONTENT_INVALID_INPUT',
  /** A fragment over its leaf or byte limit. */
  TooLarge = 'CONTENT_TOO_LARGE',
  /** Approve or reject found no candidate held for that record, locale (and unit). */
  NothingPending = 'CONTENT_NOTHING_PENDING',
  /** Approve of a candidate whose source moved since it was made (send `force` to approve anyway). */
  CandidateStale = 'CONTENT_CANDIDATE_STALE',
}

/** A content error: the global filter turns it into `{statusCode, error, code, message, requestId}`. */
export class ContentException extends DomainException {
  static pageNotFound(slug: string): ContentException {
    return new ContentException(ContentExceptionCode.PageNotFound, 404, `no page "${slug}"`);
  }

  static fragmentNotFound(key: string): ContentException {
    return new ContentException(ContentExceptionCode.FragmentNotFound, 404, `no fragment "${key}"`);
  }

  static nothingPending(type: string, id: string, locale: string, unit?: string): ContentException {
    return new ContentException(ContentExceptionCode.NothingPending, 404, `no translation of ${type} "${id}"${unit !== undefined ? ` unit ${unit}` : ''} waits for review in ${locale}`);
  }

  static staleCandidate(type: string, id: string, locale: string, units: readonly string[]): ContentException {
    return new ContentException(
      ContentExceptionCode.CandidateStale,
      409,
      `the source of ${type} "${id}" (${units.join(', ')}) changed since the ${locale} candidate was made; approve with "force": true to publish it anyway, or reject it for a fresh one`,
      { units: [...units] },
    );
  }

  static invalid(details: FieldProblem[]): ContentException {
    return new ContentException(ContentExceptionCode.InvalidInput, 400, `invalid input: ${details.map((d) => d.field).join(', ')}`, { details });
  }

  static tooLarge(details: FieldProblem[]): ContentException {
    return new ContentException(ContentExceptionCode.TooLarge, 413, details.map((d) => d.problems.join('; ')).join('; '), { details });
  }

  private constructor(code: ContentExceptionCode, status: number, message: string, body?: Record<string, unknown>) {
    super(code, status, message, body);
  }
}
