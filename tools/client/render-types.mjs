#!/usr/bin/env node
// Renders OpenAPI documents to TypeScript with openapi-typescript's Node API. Reads
// {"<service>": <document>, ...} on stdin and writes {"<service>": "<types>", ...} on stdout.
// A child process of tools/client/generate.ts: openapi-typescript pulls in ESM-only dependencies
// that Node loads natively but Jest (which runs the staleness check) cannot require.
import openapiTS, { astToString } from 'openapi-typescript';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const docs = JSON.parse(input);
const out = {};
for (const [service, doc] of Object.entries(docs)) {
  out[service] = astToString(await openapiTS(doc, { silent: true }));
}
process.stdout.write(JSON.stringify(out));
