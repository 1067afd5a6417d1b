import Ajv2020 from 'ajv/dist/2020';
import type { FieldProblem } from '@flowplane/platform/http';
import type { RegisterRemoteNodeDto, RemoteNodePortDto } from './remote-node.dto';
import type { RemoteNodeUrlPolicy } from './remote-node-url.policy';

/**
 * What the DTO decorators cannot check about a registration: the id matches the path, the invoke
 * URL is https (or http to a host the policy allows) without credentials, the settings schema is an object schema, every schema is a
 * valid JSON Schema (2020-12 meta-schema; `x-*` hints allowed), and port names are unique per
 * direction. Empty when the registration is fine.
 */
export function registrationProblems(pathId: string, dto: RegisterRemoteNodeDto, urls?: RemoteNodeUrlPolicy): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (field: string, problem: string) => {
    const existing = problems.find((p) => p.field === field);
    if (existing) existing.problems.push(problem);
    else problems.push({ field, problems: [problem] });
  };

  if (dto.manifest.id !== pathId) add('manifest.id', `manifest.id ${JSON.stringify(dto.manifest.id)} must equal the id in the path ${JSON.stringify(pathId)}`);

  let url: URL | undefined;
  try {
    url = new URL(dto.invokeUrl);
  } catch {
    add('invokeUrl', 'invokeUrl must be an absolute URL');
  }
  if (url) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') add('invokeUrl', `invokeUrl must use http or https, not ${url.protocol.replace(/:$/, '')}`);
    else if (urls) {
      const problem = urls.problem(url);
      if (problem) add('invokeUrl', problem);
    }
    if (url.username || url.password) add('invokeUrl', 'invokeUrl must not carry credentials (calls carry a step token)');
  }

  // A fresh validator per registration: schemas with an $id must not collide with an earlier one.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const checkSchema = (field: string, schema: Record<string, unknown>) => {
    try {
      if (!ajv.validateSchema(schema)) {
        for (const e of ajv.errors ?? []) add(field, `not a valid JSON Schema: ${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
        return;
      }
      ajv.compile(schema);
    } catch (e) {
      add(field, `not a usable JSON Schema: ${(e as Error).message}`);
    }
  };

  const settings = dto.manifest.settingsSchema;
  if (settings) {
    if (settings.type !== undefined && settings.type !== 'object') add('manifest.settingsSchema', 'settingsSchema.type must be "object"');
    const props = settings.properties;
    if (props !== undefined && (typeof props !== 'object' || props === null || Array.isArray(props))) add('manifest.settingsSchema', 'settingsSchema.properties must be an object');
    checkSchema('manifest.settingsSchema', settings);
  }

  const ports = (direction: 'inputs' | 'outputs', list: RemoteNodePortDto[]) => {
    const seen = new Set<string>();
    list.forEach((p, i) => {
      if (seen.has(p.port)) add(`manifest.${direction}.${i}.port`, `port ${JSON.stringify(p.port)} is declared twice in ${direction}`);
      seen.add(p.port);
      if (p.schema) checkSchema(`manifest.${direction}.${i}.schema`, p.schema);
    });
  };
  ports('inputs', dto.manifest.inputs);
  ports('outputs', dto.manifest.outputs);
  return problems;
}
