import { stronglyConnected } from '@flowplane/flow/ir';
import { PIPELINE_CODES } from './codes';
import type { ApiModel, Diagnostic, ModelModule } from './model';
import { type SourceMap } from './source';
import { validateModel, type ValidateOptions } from './validate';

/**
 * Compile step (issue 5 item 4): modules in topological order of `depends_on` (a module comes after
 * every module it depends on), stable: among modules whose dependencies are all placed, document
 * order wins. Unknown dependencies are ignored here (the validator reports them, FDL030).
 *
 * A cycle is a `CYCLE` error naming it ("module dependency cycle: a -> b -> a"), one per cycle
 * group (strongly connected component), pointing at the `depends_on` of its first module in
 * document order. Modules of a cycle are still placed: when nothing else can go, the first
 * remaining module in document order goes next, so the result always holds every module once.
 */

export interface ModuleOrder {
  modules: ModelModule[];
  diagnostics: Diagnostic[];
}

export function orderModules(modules: readonly ModelModule[], options: { map?: SourceMap } = {}): ModuleOrder {
  const n = modules.length;
  const byName = new Map<string, number[]>();
  modules.forEach((m, i) => byName.set(m.name, [...(byName.get(m.name) ?? []), i]));
  /** deps[i]: indices module i depends on (known, deduplicated, document order). */
  const deps = modules.map((m) => [...new Set((m.depends_on ?? []).flatMap((d) => byName.get(d) ?? []))].sort((a, b) => a - b));

  const placed = new Array<boolean>(n).fill(false);
  const order: number[] = [];
  while (order.length < n) {
    let next = -1;
    for (let i = 0; i < n && next < 0; i++) if (!placed[i] && deps[i].every((d) => placed[d])) next = i;
    if (next < 0) next = placed.indexOf(false);
    placed[next] = true;
    order.push(next);
  }

  const diagnostics: Diagnostic[] = [];
  for (const cycle of findCycles(deps)) {
    const names = [...cycle, cycle[0]].map((i) => modules[i].name);
    const path = `/modules/${cycle[0]}/depends_on`;
    const d: Diagnostic = { code: 'CYCLE', severity: PIPELINE_CODES.CYCLE.severity, message: `module dependency cycle: ${names.join(' -> ')}`, path };
    const position = options.map?.position(path);
    if (position) d.position = position;
    diagnostics.push(d);
  }
  return { modules: order.map((i) => modules[i]), diagnostics };
}

/**
 * One cycle per strongly connected component that has one (size above one, or a self-dependency),
 * as module indices starting at the component's first module in document order, following the
 * earliest dependency at each step. Components are listed by their first module.
 */
function findCycles(deps: number[][]): number[][] {
  const n = deps.length;
  const comp = stronglyConnected(deps);
  const cycles: number[][] = [];
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    const c = comp[i];
    if (seen.has(c)) continue;
    seen.add(c);
    const members = comp.filter((x) => x === c).length;
    if (members === 1 && !deps[i].includes(i)) continue;
    // Breadth-first search inside the component for the shortest way from i back to i.
    const prev = new Map<number, number>();
    const queue = [i];
    let found = false;
    while (queue.length && !found) {
      const v = queue.shift() as number;
      for (const w of deps[v]) {
        if (comp[w] !== c) continue;
        if (w === i) {
          prev.set(-1, v);
          found = true;
          break;
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    const path: number[] = [];
    for (let v = prev.get(-1) as number; v !== i; v = prev.get(v) as number) path.unshift(v);
    cycles.push([i, ...path]);
  }
  return cycles;
}

export interface CompileResult {
  /** The model with its modules in dependency order (null for a nil document). */
  model: ApiModel | null;
  /** Validation diagnostics, then cycle diagnostics. */
  diagnostics: Diagnostic[];
}

/** Validates a model and orders its modules. Does not modify its argument. */
export function compileModel(model: ApiModel | null | undefined, options: ValidateOptions = {}): CompileResult {
  const diagnostics = validateModel(model, options);
  if (!model) return { model: null, diagnostics };
  const order = orderModules(model.modules ?? [], options);
  return { model: { ...model, modules: order.modules }, diagnostics: [...diagnostics, ...order.diagnostics] };
}
