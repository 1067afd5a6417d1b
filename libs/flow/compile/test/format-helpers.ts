import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Parser } from '@asyncapi/parser';
import { parse, stringify } from 'yaml';
import { expectGolden } from './golden';

/** Test helpers of the format specs (openapi, asyncapi, business-model, form-b). */

export const FIXTURES = join(__dirname, 'fixtures');

export function fixturePath(rel: string): string {
  return join(FIXTURES, rel);
}

/** A YAML or JSON fixture as a plain value. */
export function loadFixture(rel: string): unknown {
  return parse(readFileSync(fixturePath(rel), 'utf8'));
}

/** YAML text as the library writes it (YAML 1.2, block style, no aliases, no line folding). */
export function toYaml(value: unknown): string {
  return stringify(value, { version: '1.2', aliasDuplicateObjects: false, lineWidth: 0 });
}

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Compares with the golden fixture `rel` (rewritten when UPDATE_GOLDEN=1). */
export function golden(rel: string, text: string): void {
  expectGolden(fixturePath(rel), text);
}

/** swagger-parser `validate` (schema and semantics); resolves to the error message, or undefined when valid. */
export async function openApiError(doc: unknown): Promise<string | undefined> {
  try {
    await SwaggerParser.validate(JSON.parse(JSON.stringify(doc)) as never);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

const asyncParser = new Parser();

export interface AsyncApiReport {
  errors: string[];
  warnings: number;
}

/** @asyncapi/parser `validate` of the YAML text of a document: messages of severity 0 (error), count of severity 1 (warning). */
export async function asyncApiReport(doc: unknown): Promise<AsyncApiReport> {
  const diagnostics = await asyncParser.validate(toYaml(doc));
  return {
    errors: diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code} at /${d.path.join('/')}: ${d.message}`),
    warnings: diagnostics.filter((d) => d.severity === 1).length,
  };
}
