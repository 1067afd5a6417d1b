/** Log paths that may hold secrets; pino replaces their values with `[redacted]`. */
export const loggerRedactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["api-key"]',
  'req.query.token',
  'res.headers["set-cookie"]',
  '*.password',
  '*.apiKey',
  '*.api_key',
  '*.secret',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.config.apiKey',
];

const SECRET_QUERY = /([?&](?:token|access_token|api_key|apikey|key)=)[^&]*/gi;

/** Masks credentials passed in a URL's query string (the hub takes its token there). */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(SECRET_QUERY, '$1[redacted]');
}
