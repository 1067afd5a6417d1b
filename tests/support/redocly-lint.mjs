// Lints the OpenAPI document read from stdin with Redocly's `recommended` ruleset and prints the
// problems as JSON. A separate process because @redocly/openapi-core is ESM-only (with ESM-only
// dependencies), which Jest's CommonJS module system cannot load.
import { createConfig, lintFromString } from '@redocly/openapi-core';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const config = await createConfig({ extends: ['recommended'] });
const problems = await lintFromString({ source: Buffer.concat(chunks).toString('utf8'), absoluteRef: 'openapi.json', config });
process.stdout.write(
  JSON.stringify(problems.map((p) => ({ ruleId: p.ruleId, severity: p.severity, message: p.message, pointer: p.location?.[0]?.pointer }))),
);
