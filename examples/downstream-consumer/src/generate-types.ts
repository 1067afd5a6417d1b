import 'reflect-metadata';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { DEFAULT_TOPICS, renderEventTypes } from './asyncapi-to-ts';

const USAGE = `Writes src/events.generated.ts from the Flowplane AsyncAPI document.

  node dist/examples/downstream-consumer/src/generate-types.js [source] [--out <file>] [--topics a,b] [--check]

Source (one of):
  --url <url>     a running gateway, e.g. http://localhost:8080/api/v1/asyncapi.yaml
  --file <path>   a saved copy of that document (YAML or JSON)
  (none)          the document this repository's code builds (what the gateway serves for the fixed topics)

--check writes nothing and exits 1 when the file differs from what the document generates.`;

/** This file's folder in the source tree, also when it runs from the build (dist/examples/… mirrors examples/…). */
function sourceDir(): string {
  const parts = __dirname.split(path.sep);
  const dist = parts.lastIndexOf('dist');
  return dist >= 0 ? [...parts.slice(0, dist), ...parts.slice(dist + 1)].join(path.sep) : __dirname;
}

/** The committed output of the generator. */
export const GENERATED_FILE = path.join(sourceDir(), 'events.generated.ts');

export interface AsyncApiSource {
  url?: string;
  file?: string;
}

/**
 * The AsyncAPI document, parsed: fetched from a gateway, read from a file, or (neither given) built
 * by the platform code in this repository exactly as the gateway builds it for `GET /api/v1/asyncapi.yaml`.
 */
export async function loadAsyncApi(source: AsyncApiSource = {}): Promise<unknown> {
  if (source.url) {
    const res = await fetch(source.url, { headers: { accept: 'application/yaml, application/json' } });
    if (!res.ok) throw new Error(`GET ${source.url} answered ${res.status} ${res.statusText}`);
    return parseYaml(await res.text());
  }
  if (source.file) return parseYaml(await readFile(source.file, 'utf8')); // YAML is a superset of JSON
  // In-repo only: a project that copied this example uses --url or --file instead.
  const { buildAsyncApi } = await import('../../../libs/gateway/src/asyncapi');
  // Through YAML, as the gateway serves it, so both sources give byte-identical output.
  return parseYaml(stringifyYaml(buildAsyncApi('0.0.0')));
}

/** The generated module for a source. */
export async function generate(
  source: AsyncApiSource = {},
  topics: readonly string[] = DEFAULT_TOPICS,
): Promise<string> {
  return renderEventTypes(await loadAsyncApi(source), topics);
}

function parseArgs(argv: string[]): {
  source: AsyncApiSource;
  out: string;
  topics: string[];
  check: boolean;
} {
  const args = {
    source: {} as AsyncApiSource,
    out: GENERATED_FILE,
    topics: [...DEFAULT_TOPICS] as string[],
    check: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\n\n${USAGE}`);
      return v;
    };
    if (flag === '--url') args.source.url = value();
    else if (flag === '--file') args.source.file = value();
    else if (flag === '--out') args.out = path.resolve(value());
    else if (flag === '--topics')
      args.topics = value()
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
    else if (flag === '--check') args.check = true;
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${flag}\n\n${USAGE}`);
  }
  if (args.source.url && args.source.file) throw new Error('give --url or --file, not both');
  return args;
}

async function main(): Promise<void> {
  const { source, out, topics, check } = parseArgs(process.argv.slice(2));
  const text = await generate(source, topics);
  const current = await readFile(out, 'utf8').catch(() => undefined);
  const rel = path.relative(process.cwd(), out);
  if (check) {
    if (current === text) return console.log(`${rel} is up to date`);
    console.error(`${rel} is stale: regenerate it (same command without --check)`);
    process.exitCode = 1;
    return;
  }
  if (current === text) return console.log(`${rel} unchanged`);
  await writeFile(out, text);
  console.log(`wrote ${rel} (${topics.join(', ')})`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
