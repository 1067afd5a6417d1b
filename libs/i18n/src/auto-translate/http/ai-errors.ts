import { LlmConfigError } from '@flowplane/llm';
import { DomainException } from '@flowplane/platform/http';
import { ReviewerUnavailableError } from '../auto-translate.ports';

/** Errors of the AI translate and review routes, as the global filter renders them. */
export class AiTranslateException extends DomainException {}

/**
 * A failure that stops a whole translate or review request: the reviewer could not answer (503
 * `I18N_REVIEWER_UNAVAILABLE`), or the `ai/*` settings name something unusable, such as a profile
 * that does not exist or an unknown provider (503 `I18N_AI_MISCONFIGURED`: the request was fine,
 * the service's model is not). Other errors pass through.
 */
export function toAiTranslateException(error: unknown): unknown {
  if (error instanceof ReviewerUnavailableError) return new AiTranslateException('I18N_REVIEWER_UNAVAILABLE', 503, error.message);
  if (error instanceof LlmConfigError) return new AiTranslateException('I18N_AI_MISCONFIGURED', 503, `the translation model is misconfigured (ai/* settings): ${error.message}`);
  return error;
}

/** The key asked for review has no row, or no text in the source locale to judge candidates against. */
export function reviewKeyNotFound(key: string, ns: string, sourceLocale: string): AiTranslateException {
  return new AiTranslateException('I18N_KEY_NOT_FOUND', 404, `no source text (${sourceLocale}) for key "${key}"${ns ? ` in namespace "${ns}"` : ''} to review against`);
}
