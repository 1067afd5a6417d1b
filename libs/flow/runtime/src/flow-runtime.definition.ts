import { API_PREFIX, type ServiceConfig, type ServiceDefinition } from '@flowplane/platform/service';
import { FlowRuntimeEnv } from './flow-runtime.env';
import { FlowRuntimeModule } from './flow-runtime.module';
import { internalRunsFastPath } from './runs/internal-runs.fast-path';
import { runsFastPath } from './runs/runs.fast-path';

/** The flow-runtime service: what it owns and which ports it uses. */
export const flowRuntimeDefinition: ServiceDefinition = {
  name: 'flow-runtime',
  title: 'Flowplane flow runtime',
  description: 'Flows, versions, runs, node and template registries, the route dispatcher, event sources, the scheduler and the LLM usage ledger.',
  defaultPort: 8081,
  uses: { bus: true, store: true },
  env: [FlowRuntimeEnv],
  // A JSON document may be any value: `null` is FDL001 and `42` not a mapping, as they are in YAML.
  anyJsonBodyPaths: () => ['compile', 'validate', 'tools'].map((route) => `/${API_PREFIX}/flows/${route}`),
  module: (ctx) => FlowRuntimeModule.forRoot({ scheduler: { tickMs: (ctx.config as ServiceConfig & FlowRuntimeEnv).SCHEDULER_TICK_MS } }),
  // The assistant's runs (one per chat message) and direct runs skip the router, guard and pipe chain (ADR 0038).
  interceptRequest: (app, ctx) => {
    const internal = internalRunsFastPath(app, ctx);
    const runs = runsFastPath(app, ctx);
    return (req, res) => internal(req, res) || runs(req, res);
  },
};
