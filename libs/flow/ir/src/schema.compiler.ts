import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { JsonSchema } from './flow-document';

let ajv: Ajv2020 | undefined;

/** Compiles a schema once (lazily, on first use) with every error reported, never coercing or mutating data. */
export function lazySchema(schema: JsonSchema): () => ValidateFunction {
  let compiled: ValidateFunction | undefined;
  return () => {
    if (!compiled) {
      ajv ??= new Ajv2020({ allErrors: true, strict: true, strictRequired: false, useDefaults: false, coerceTypes: false });
      compiled = ajv.compile(schema);
    }
    return compiled;
  };
}
