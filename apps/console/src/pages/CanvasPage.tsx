import Form from '@rjsf/core';
import type { ErrorSchema, RJSFSchema, ValidatorType } from '@rjsf/utils';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { addEdge, Background, type Connection, Controls, type Edge, Handle, MiniMap, type Node, type NodeProps, Position, ReactFlow, ReactFlowProvider, useEdgesState, useNodesState } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { memo, useEffect, useMemo, useState } from 'react';
import { api, FlowplaneApiError, unwrap } from '../api';
import { $t } from '../i18n';
import type { FlowDocument, FlowEdge, NodeManifest } from '../lib/flow-types';
import { ANY_PORT, type CanvasEdgeData, type CanvasNodeData, canvasToIr, freshEdgeId, INPUT_HANDLE, irToCanvas, nodeFromManifest, STRUCTURAL_KINDS, structuralNode } from '../lib/ir-canvas';
import { configToFormData, formDataToConfig, settingsToForm } from '../lib/settings-form';
import { createSettingsValidator } from '../lib/settings-validator';
import { type ApiProblem, pinProblems, type Problem } from '../lib/validation-problems';
import { href, Link, useRoute } from '../router';
import { ErrorNotice, Loading, PageTitle } from '../ui';
import { fetchVersion } from './FlowPage';

type FlowCanvasNode = Node<CanvasNodeData & { problems?: Problem[] }, 'flow'>;
type FlowCanvasEdge = Edge<CanvasEdgeData>;

const validator = createSettingsValidator((key, fallback, params) => $t(key, fallback, params)) as unknown as ValidatorType;
const DELIVERY = ['direct', 'ephemeral', 'checkpoint', 'durable', 'stream'];

const FlowNodeView = memo(function FlowNodeView({ data, selected }: NodeProps<FlowCanvasNode>) {
  const n = data.node;
  const problems = data.problems ?? [];
  return (
    <div className={`flow-node${selected ? ' selected' : ''}${problems.length || data.unknown ? ' has-problems' : ''}`}>
      <Handle type="target" id={INPUT_HANDLE} position={Position.Left} title={$t('canvas.input', 'Input of {id}', { id: n.id })} />
      <div className="flow-node-title">{n.name ?? n.id}</div>
      <div className="flow-node-meta">
        {n.kind}
        {n.action_ref ? ` · ${n.action_ref}` : ''}
      </div>
      {data.unknown ? <div className="flow-node-problem">{$t('canvas.unknownNode', 'not in the node registry')}</div> : null}
      {problems.map((p, i) => (
        <div key={i} className="flow-node-problem">
          {p.key ? `${p.key}: ` : ''}
          {p.message}
        </div>
      ))}
      <div className="flow-node-ports">
        {data.outputs.map((port) => (
          <div key={port} className="flow-node-port">
            <span>{port === ANY_PORT ? $t('canvas.anyPort', 'any') : port}</span>
            <Handle type="source" id={port} position={Position.Right} className="port-handle" title={$t('canvas.output', 'Output {port} of {id}', { port, id: n.id })} />
          </div>
        ))}
      </div>
    </div>
  );
});

const nodeTypes = { flow: FlowNodeView };

/** The canvas of a flow: draws a version, edits it, saves a new version. */
export default function CanvasPage({ flowId }: { flowId: string }) {
  const { route } = useRoute();
  const asked = route.query.get('version') ?? undefined;
  const manifests = useQuery({ queryKey: ['nodes'], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/nodes')) as unknown as NodeManifest[] });
  const versions = useQuery({ queryKey: ['versions', flowId], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/{id}/versions', { params: { path: { id: flowId } } })) as Array<{ versionId: string; warnings: ApiProblem[] }> });
  const versionId = asked ?? versions.data?.[0]?.versionId;
  const doc = useQuery({ queryKey: ['version', flowId, versionId], queryFn: () => fetchVersion(flowId, versionId!), enabled: Boolean(versionId) });
  const ready = manifests.data && versions.data && (!versionId || doc.data);
  return (
    <>
      <p className="crumbs">
        <Link to={href(['flows'])}>{$t('nav.flows', 'Flows')}</Link> / <Link to={href(['flows', flowId])}>{flowId}</Link> / {$t('canvas.crumb', 'canvas')}
      </p>
      <PageTitle>{$t('canvas.title', 'Canvas of {flow} ({version})', { flow: flowId, version: versionId ?? $t('canvas.new', 'new') })}</PageTitle>
      <ErrorNotice error={manifests.error ?? versions.error ?? doc.error} />
      {ready ? (
        <ReactFlowProvider>
          <Editor key={versionId ?? 'new'} flowId={flowId} base={doc.data ?? { nodes: [], edges: [] }} manifests={manifests.data!} warnings={versions.data?.find((v) => v.versionId === versionId)?.warnings} />
        </ReactFlowProvider>
      ) : (
        <Loading />
      )}
    </>
  );
}

function Editor({ flowId, base, manifests, warnings }: { flowId: string; base: FlowDocument; manifests: NodeManifest[]; warnings?: ApiProblem[] }) {
  const client = useQueryClient();
  const { navigate } = useRoute();
  const byId = useMemo(() => new Map(manifests.map((m) => [m.id, m])), [manifests]);
  const initial = useMemo(() => irToCanvas(base, byId), [base, byId]);
  const [nodes, setNodes, onNodesChange] = useNodesState<FlowCanvasNode>(initial.nodes as FlowCanvasNode[]);
  const [edges, setEdges, onEdgesChange] = useEdgesState<FlowCanvasEdge>(initial.edges as FlowCanvasEdge[]);
  const [selected, setSelected] = useState<{ node?: string; edge?: string }>({});
  const [dirty, setDirty] = useState(false);
  const [pick, setPick] = useState<string>(base.nodes.length ? (manifests[0]?.id ?? '@start') : '@start');
  const save = useMutation({
    mutationFn: async (doc: FlowDocument) => unwrap(await api.flows.POST('/api/v1/flows/{id}/versions', { params: { path: { id: flowId }, query: { format: 'ir' } }, body: doc as unknown as Record<string, unknown> })) as { versionId: string },
    onSuccess: (v) => {
      setDirty(false);
      void client.invalidateQueries({ queryKey: ['versions', flowId] });
      navigate(href(['flows', flowId, 'canvas'], { version: v.versionId }), true);
    },
  });
  const current = () => canvasToIr(base, { nodes, edges: edges.map((e) => ({ ...e, data: e.data })) });
  // A refused save pins each problem to its node or edge; until then, the version's own warnings.
  const pinned = useMemo(() => {
    const details = save.error instanceof FlowplaneApiError ? save.error.details : undefined;
    if (details) return pinProblems(current(), details);
    return warnings?.length ? pinProblems(base, warnings.map((w) => ({ ...w, severity: 'warning' as const }))) : undefined;
  }, [save.error, warnings, base]);
  useEffect(() => {
    setNodes((ns) => ns.map((n) => ({ ...n, data: { ...n.data, problems: pinned?.nodes.get(n.id) } })));
  }, [pinned, setNodes]);
  const addNode = () => {
    const taken = nodes.map((n) => n.id);
    const kind = STRUCTURAL_KINDS.find((k) => pick === `@${k}`);
    const m = byId.get(pick);
    if (!kind && !m) return;
    const node = kind ? structuralNode(kind, taken) : nodeFromManifest(m!, taken);
    const y = nodes.length ? Math.max(...nodes.map((n) => n.position.y)) + 140 : 0;
    const [drawn] = irToCanvas({ nodes: [node], edges: [], meta: { positions: { [node.id]: { x: 0, y } } } }, byId).nodes;
    setNodes((ns) => [...ns, drawn as FlowCanvasNode]);
    setSelected({ node: node.id });
    setDirty(true);
  };
  const onConnect = (c: Connection) => {
    const id = freshEdgeId(c.source, c.target, edges.map((e) => e.id));
    const port = c.sourceHandle && c.sourceHandle !== ANY_PORT ? c.sourceHandle : undefined;
    const edge: FlowEdge = { id, from: c.source, to: c.target, ...(port ? { port } : {}) };
    setEdges((es) => addEdge({ ...c, id, targetHandle: INPUT_HANDLE, data: { edge } }, es));
    setDirty(true);
  };
  const node = nodes.find((n) => n.id === selected.node);
  const edge = edges.find((e) => e.id === selected.edge);
  return (
    <div className="canvas-layout">
      <div className="canvas-toolbar row" role="toolbar" aria-label={$t('canvas.tools', 'Canvas tools')}>
        <label>
          {$t('canvas.nodeType', 'Node type')}{' '}
          <select value={pick} onChange={(e) => setPick(e.target.value)}>
            <option value="@start">{$t('canvas.startNode', 'Start (passes the input on)')}</option>
            <option value="@end">{$t('canvas.endNode', 'End (returns the packet)')}</option>
            {manifests.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name} ({m.id})
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={addNode}>
          {$t('canvas.addNode', 'Add node')}
        </button>
        <button
          type="button"
          disabled={!node && !edge}
          onClick={() => {
            if (node) {
              setNodes((ns) => ns.filter((n) => n.id !== node.id));
              setEdges((es) => es.filter((e) => e.source !== node.id && e.target !== node.id));
            } else if (edge) setEdges((es) => es.filter((e) => e.id !== edge.id));
            setSelected({});
            setDirty(true);
          }}
        >
          {$t('canvas.delete', 'Delete the selection')}
        </button>
        <button type="button" className="primary" disabled={save.isPending || !nodes.length} onClick={() => save.mutate(current())}>
          {$t('canvas.save', 'Save as a new version')}
        </button>
        {dirty ? <span className="muted">{$t('canvas.unsaved', 'Unsaved changes')}</span> : null}
      </div>
      {save.error ? <ErrorNotice error={save.error} /> : null}
      {pinned?.general.length ? (
        <ul className="problems">
          {pinned.general.map((p, i) => (
            <li key={i}>{p.message}</li>
          ))}
        </ul>
      ) : null}
      <div className="canvas-body">
        <div className="canvas" aria-label={$t('canvas.label', 'Flow canvas')} role="region">
          <ReactFlow
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={(c) => {
              onNodesChange(c);
              if (c.some((x) => x.type === 'position' || x.type === 'remove')) setDirty(true);
            }}
            onEdgesChange={(c) => {
              onEdgesChange(c);
              if (c.some((x) => x.type === 'remove')) setDirty(true);
            }}
            onConnect={onConnect}
            onNodeClick={(_, n) => setSelected({ node: n.id })}
            onEdgeClick={(_, e) => setSelected({ edge: e.id })}
            onPaneClick={() => setSelected({})}
            fitView
            deleteKeyCode={['Delete', 'Backspace']}
          >
            <Background />
            <Controls />
            <MiniMap pannable zoomable />
          </ReactFlow>
        </div>
        <aside className="inspector" aria-label={$t('canvas.inspector', 'Selected item')}>
          {node ? (
            <NodeInspector
              key={node.id}
              node={node}
              manifest={node.data.node.action_ref ? byId.get(node.data.node.action_ref) : undefined}
              onChange={(patch) => {
                setNodes((ns) => ns.map((n) => (n.id === node.id ? { ...n, data: { ...n.data, node: { ...n.data.node, ...patch } } } : n)));
                setDirty(true);
              }}
            />
          ) : edge ? (
            <EdgeInspector
              key={edge.id}
              edge={edge}
              problems={pinned?.edges.get(edge.id)}
              onChange={(patch) => {
                setEdges((es) => es.map((e) => (e.id === edge.id ? { ...e, data: { edge: { ...(e.data?.edge as FlowEdge), ...patch } }, label: [e.sourceHandle !== ANY_PORT ? e.sourceHandle : '', patch.condition ?? e.data?.edge.condition].filter(Boolean).join(' · ') || undefined } : e)));
                setDirty(true);
              }}
            />
          ) : (
            <p className="muted">{$t('canvas.selectHelp', 'Select a node to edit its settings, or an edge to edit its condition. Drag from an output to an input to connect; Delete removes the selection.')}</p>
          )}
        </aside>
      </div>
    </div>
  );
}

function NodeInspector({ node, manifest, onChange }: { node: FlowCanvasNode; manifest?: NodeManifest; onChange: (patch: Partial<FlowCanvasNode['data']['node']>) => void }) {
  const n = node.data.node;
  const form = useMemo(() => settingsToForm(manifest?.settingsSchema, (k, d, p) => $t(k, d, p)), [manifest]);
  const problems = node.data.problems ?? [];
  const extraErrors = useMemo(() => {
    const tree: Record<string, { __errors: string[] }> = {};
    for (const p of problems) if (p.key && p.key !== 'action_ref') (tree[p.key] ??= { __errors: [] }).__errors.push(p.message);
    return tree as unknown as ErrorSchema;
  }, [problems]);
  return (
    <>
      <h2>{$t('canvas.node', 'Node {id}', { id: n.id })}</h2>
      <label htmlFor="node-name">{$t('flows.name', 'Name')}</label>
      <input id="node-name" value={n.name ?? ''} onChange={(e) => onChange({ name: e.target.value || undefined })} />
      {manifest?.description ? <p className="muted small">{manifest.description}</p> : null}
      {problems.filter((p) => !p.key || p.key === 'action_ref').map((p, i) => (
        <p key={i} className="field-error">
          {p.message}
        </p>
      ))}
      {manifest ? (
        <Form
          schema={form.schema as RJSFSchema}
          uiSchema={{ ...form.uiSchema, 'ui:submitButtonOptions': { submitText: $t('canvas.applySettings', 'Apply settings') } }}
          formData={configToFormData(n.config)}
          validator={validator}
          extraErrors={extraErrors}
          showErrorList={false}
          noHtml5Validate
          onSubmit={({ formData }) => {
            const config = formDataToConfig(formData as Record<string, unknown>, form);
            onChange({ config: Object.keys(config).length ? config : undefined });
          }}
        />
      ) : n.action_ref ? (
        <p className="field-error">{$t('canvas.noManifest', 'The node registry has no {ref}: its settings cannot be edited here.', { ref: n.action_ref })}</p>
      ) : (
        <p className="muted">{$t('canvas.noSettings', 'This node has no settings.')}</p>
      )}
    </>
  );
}

function EdgeInspector({ edge, problems, onChange }: { edge: FlowCanvasEdge; problems?: Problem[]; onChange: (patch: Partial<FlowEdge>) => void }) {
  const e = edge.data?.edge;
  const [condition, setCondition] = useState(e?.condition ?? '');
  return (
    <form
      onSubmit={(ev) => {
        ev.preventDefault();
        onChange({ condition: condition.trim() || undefined });
      }}
    >
      <h2>{$t('canvas.edge', 'Edge {id}', { id: edge.id })}</h2>
      <p>
        {edge.source} → {edge.target}
        {edge.sourceHandle && edge.sourceHandle !== ANY_PORT ? ` (${edge.sourceHandle})` : ''}
      </p>
      {(problems ?? []).map((p, i) => (
        <p key={i} className="field-error">
          {p.message}
        </p>
      ))}
      <label htmlFor="edge-condition">{$t('canvas.condition', 'Condition')}</label>
      <input id="edge-condition" value={condition} placeholder='port == "Sent"' onChange={(ev) => setCondition(ev.target.value)} />
      <label htmlFor="edge-delivery">{$t('canvas.delivery', 'Delivery')}</label>
      <select id="edge-delivery" value={e?.delivery_mode ?? 'direct'} onChange={(ev) => onChange({ delivery_mode: ev.target.value === 'direct' ? undefined : ev.target.value })}>
        {DELIVERY.map((d) => (
          <option key={d}>{d}</option>
        ))}
      </select>
      <button type="submit">{$t('canvas.applyEdge', 'Apply')}</button>
    </form>
  );
}
