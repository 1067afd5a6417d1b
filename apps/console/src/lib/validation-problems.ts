import type { FlowDocument } from './flow-types';

/**
 * Problems the API reports about a flow document, pinned to the node or edge they concern. The
 * flow-runtime names them in several forms:
 * - saving a version (400 INVALID_DOCUMENT / INVALID_NODE_CONFIG): `details[].field` a JSON
 *   pointer by index, `/nodes/2/config/url`, `/edges/0/to`;
 * - publishing (400 INVALID_NODE_CONFIG): `<versionId>#/nodes/2/config/url`;
 * - publishing (400 BROKEN_NODES): `<versionId>.nodes.<nodeId>.action_ref`;
 * - refused secrets: a problem text starting `node "<nodeId>": ...`;
 * - a version's `warnings`: `{path, message, severity, code}` with the JSON pointer in `path`.
 */

export interface Problem {
  message: string;
  severity: 'error' | 'warning';
  code?: string;
  /** The config key a node problem names (`url` of `/nodes/2/config/url`), when it names one. */
  key?: string;
}

export interface PinnedProblems {
  nodes: Map<string, Problem[]>;
  edges: Map<string, Problem[]>;
  /** Problems of the document as a whole, or of a node or edge the document does not hold. */
  general: Problem[];
}

/** One problem as the API gives it: an error `detail` or a version warning. */
export type ApiProblem = { field?: string; path?: string; problems?: string[]; message?: string; severity?: 'error' | 'warning'; code?: string };

function push(map: Map<string, Problem[]>, id: string, p: Problem) {
  const list = map.get(id) ?? [];
  list.push(p);
  map.set(id, list);
}

/** Pins each problem to its node or edge of `doc`. */
export function pinProblems(doc: FlowDocument, problems: ApiProblem[] | undefined): PinnedProblems {
  const out: PinnedProblems = { nodes: new Map(), edges: new Map(), general: [] };
  const nodeIds = new Set(doc.nodes.map((n) => n.id));
  for (const raw of problems ?? []) {
    const where = raw.field ?? raw.path ?? '';
    const messages = raw.problems?.length ? raw.problems : [raw.message ?? ''];
    for (const message of messages) {
      const p: Problem = { message, severity: raw.severity ?? 'error', ...(raw.code ? { code: raw.code } : {}) };
      const pointer = /(?:^|#)\/(nodes|edges)\/(\d+)(?:\/([^]*))?$/.exec(where);
      const named = /(?:^|\.)nodes\.([^]+)\.action_ref$/.exec(where);
      const quoted = /^node "((?:[^"\\]|\\.)*)"/.exec(message);
      if (pointer) {
        const index = Number(pointer[2]);
        const rest = pointer[3] ?? '';
        if (pointer[1] === 'nodes' && doc.nodes[index]) {
          const key = /^config\/([^/]+)/.exec(rest)?.[1];
          push(out.nodes, doc.nodes[index].id, key ? { ...p, key: key.replace(/~1/g, '/').replace(/~0/g, '~') } : p);
          continue;
        }
        if (pointer[1] === 'edges' && doc.edges[index]) {
          push(out.edges, doc.edges[index].id, p);
          continue;
        }
      } else if (named && nodeIds.has(named[1])) {
        push(out.nodes, named[1], { ...p, key: 'action_ref' });
        continue;
      } else if (quoted) {
        let id: string | undefined;
        try {
          id = JSON.parse(`"${quoted[1]}"`) as string;
        } catch {
          id = undefined;
        }
        if (id && nodeIds.has(id)) {
          push(out.nodes, id, p);
          continue;
        }
      }
      out.general.push(where ? { ...p, message: `${where}: ${message}` } : p);
    }
  }
  return out;
}
