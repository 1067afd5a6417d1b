import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { catchError, type Observable } from 'rxjs';
import { LlmError } from '@flowplane/llm';
import { DomainException } from '@flowplane/platform/http';
import { VectorStoreError } from '@flowplane/platform/vector';

/** A search error with its HTTP status (400 bad input, 404 unknown index, 501 no owner, 503 backend down). */
export class SearchException extends DomainException {}

/**
 * Port and embedder errors as HTTP answers: their 4xx messages say what was wrong (dimension,
 * filter clause, id); 5xx say which dependency failed, never its internal message.
 */
export function toSearchException(err: unknown): unknown {
  if (err instanceof DomainException) return err;
  if (err instanceof VectorStoreError) {
    if (err.status >= 500) return new SearchException(err.code, 503, 'the vector store is unavailable, retry later');
    return new SearchException(err.code, err.status, err.message);
  }
  if (err instanceof LlmError) {
    if (err.status >= 500 || err.status === 429) {
      return new SearchException('EMBEDDING_UNAVAILABLE', 503, `the embedding provider is unavailable (${err.code}), retry later`);
    }
    return new SearchException('EMBEDDING_FAILED', 400, `embedding failed: ${err.message}`);
  }
  return err;
}

/** Applies `toSearchException` to everything a search controller throws. */
@Injectable()
export class SearchErrorsInterceptor implements NestInterceptor {
  intercept(_ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((err: unknown) => {
        throw toSearchException(err);
      }),
    );
  }
}
