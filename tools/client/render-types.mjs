#!/usr/bin/env node
// Renders OpenAPI documents to TypeScript with openapi-typescript's Node API, formatted with the
// repository's Prettier settings (so `npm run format` leaves the generated files as they are).
// Reads {"<service>": {"header": "...", "doc": <document>}, ...} on stdin and writes
// {"<service>": "<source>", ...} on stdout.
// A child process of tools/client/generate.ts: openapi-typescript and Prettier pull in ESM-only
// code that Node loads natively but Jest (which runs the staleness check) cannot require.
import openapiTS, { astToString } from 'openapi-typescript';
import * as prettier from 'prettier';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const options = { ...(await prettier.resolveConfig(path.join(root, 'libs/client/src/api/generated/x.ts'))), parser: 'typescript' };

let input = '';
for await (const chunk of process.stdin) input += chunk;
const out = {};
for (const [service, { header, doc }] of Object.entries(JSON.parse(input))) {
  out[service] = await prettier.format(header + astToString(await openapiTS(doc, { silent: true })), options);
}
process.stdout.write(JSON.stringify(out));
