import { STATUS_CODES } from 'node:http';

/** The JSON error body of ARCHITECTURE §5. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  errorId?: string;
  details?: unknown;
  [extra: string]: unknown;
}

/** Builds an error body with the standard reason phrase for the status. */
export function errorBody(statusCode: number, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, ...extra };
}
