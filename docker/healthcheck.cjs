#!/usr/bin/env node
// Container health probe for Docker HEALTHCHECK and compose: the slim Node image has no curl or wget,
// so this uses Node's own fetch. Exits 0 when GET http://127.0.0.1:$PORT$HEALTHCHECK_PATH answers 2xx.
'use strict';

const port = process.env.PORT || '8080';
const path = process.env.HEALTHCHECK_PATH || '/healthz';
const timeoutMs = Number(process.env.HEALTHCHECK_TIMEOUT_MS || 3000);
const url = `http://127.0.0.1:${port}${path}`;

fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
  .then(async (res) => {
    if (res.ok) process.exit(0);
    // Docker keeps the probe's output in `docker inspect` health logs; say why it failed.
    console.error(`unhealthy: ${url} answered ${res.status} ${await res.text().catch(() => '')}`.trim());
    process.exit(1);
  })
  .catch((err) => {
    console.error(
      `unhealthy: ${url} unreachable: ${err && err.cause ? err.cause.code || err.cause.message : err}`,
    );
    process.exit(1);
  });
