import fc from 'fast-check';
import { DELIVERY_MODES, NODE_KINDS, type FlowDocument, type FlowEdge, type FlowMeta, type FlowNode } from './flow-document';
import { canonicalHash } from './flow-document.hash';
import { parseFlowDocumentText, stringifyFlowDocumentText } from './flow-document.parser';
import { validateFlowDocument } from './flow-document.validator';
import type { SpecDocument } from './spec-document';
import { validateSpecDocument } from './spec-document.validator';
import { irToSpec, specToIr } from './spec-form.converter';

/** Strings that stress the key derivation: collisions, array-index look-alikes, pointer characters, prototype names. */
const tricky = fc.constantFrom('__proto__', 'constructor', 'toString', '0', '1', '10', 'node_1', 'a/b', '~0', 'Send', 'Send_2', 'x-id', ' ');
const text = (minLength: number) => fc.oneof(fc.string({ minLength, maxLength: 8 }), fc.string({ unit: 'binary', minLength, maxLength: 4 }), tricky);
const nodeName = fc.oneof(text(0), fc.constantFrom('', '  ', 'Send', 'Render'));
const actionRef = fc.oneof(fc.constantFrom('svc/template-render', 'svc/llm-chat', 'acme/llm-guard', 'svc/router', 'svc/email-send', 'llm'), text(1));
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const position = fc.record({ x: finite, y: finite });
const config = fc.dictionary(text(0), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

function nodeArb(id: string, isFirst: boolean): fc.Arbitrary<FlowNode> {
  const kind = isFirst ? fc.constant('start' as const) : fc.constantFrom(...NODE_KINDS);
  return kind.chain((k) =>
    fc.record(
      {
        id: fc.constant(id),
        name: nodeName,
        description: text(0),
        kind: fc.constant(k),
        action_ref: actionRef,
        config,
      },
      // An action needs its action_ref; elsewhere it is optional.
      { requiredKeys: k === 'action' ? ['id', 'kind', 'action_ref'] : ['id', 'kind'] },
    ),
  );
}

function edgeArb(ids: string[], packets: string[]): fc.Arbitrary<FlowEdge> {
  return fc.record(
    {
      id: text(1),
      from: fc.constantFrom(...ids),
      to: fc.constantFrom(...ids),
      port: text(1),
      delivery_mode: fc.constantFrom(...DELIVERY_MODES),
      condition: fc.oneof(fc.constantFrom('true', 'port == "Out"', 'output.ok && input.n > 1'), fc.string()),
      packet: packets.length > 0 ? fc.oneof(fc.constantFrom(...packets), text(1)) : text(1),
    },
    { requiredKeys: ['id', 'from', 'to'] },
  );
}

const RESERVED_META = new Set(['positions', 'packets', 'publish_with', 'schemaVersion']);

function metaArb(ids: string[]): fc.Arbitrary<FlowMeta> {
  const servers = fc.oneof(
    fc.dictionary(text(1), fc.record({ url: fc.webUrl(), protocol: fc.constantFrom('kafka', 'http', 'nats'), description: fc.string() }, { requiredKeys: ['url'] }), { maxKeys: 2 }),
    fc.jsonValue({ maxDepth: 1 }),
  );
  const known = fc.record(
    {
      positions: fc.dictionary(fc.oneof(fc.constantFrom(...ids), fc.constant('stale')), position, { maxKeys: ids.length + 1 }),
      packets: fc.dictionary(text(1), fc.constantFrom({ type: 'object' }, { type: 'string', format: 'email' }, {}), { maxKeys: 3 }),
      publish_with: fc.array(text(1), { maxLength: 2 }),
      schemaVersion: fc.oneof(fc.nat(), finite),
      version: fc.oneof(fc.string(), fc.integer()),
      servers,
    },
    { requiredKeys: [] },
  );
  const extra = fc.dictionary(text(1).filter((k) => !RESERVED_META.has(k)), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 });
  return fc.tuple(extra, known).map(([e, k]) => ({ ...e, ...k }));
}

/** Arbitrary documents that validateFlowDocument accepts (warnings allowed). */
const flowDocument: fc.Arbitrary<FlowDocument> = fc.uniqueArray(text(1), { minLength: 1, maxLength: 8 }).chain((ids) =>
  fc
    .record(
      {
        id: text(1),
        name: text(0),
        description: fc.string(),
        nodes: fc.tuple(...ids.map((id, i) => nodeArb(id, i === 0))),
        meta: metaArb(ids),
      },
      { requiredKeys: ['nodes'] },
    )
    .chain((doc) => {
      const packets = Object.keys(doc.meta?.packets ?? {});
      return fc.uniqueArray(edgeArb(ids, packets), { selector: (e) => e.id, maxLength: 12 }).map((edges): FlowDocument => ({ ...doc, edges }));
    }),
);

const runs = { numRuns: 200 };

describe('spec form round trip (property)', () => {
  it('generated documents are valid IR', () => {
    fc.assert(
      fc.property(flowDocument, (doc) => {
        expect(validateFlowDocument(doc).errors).toEqual([]);
      }),
      runs,
    );
  });

  it('specToIr(irToSpec(doc)) deep-equals doc', () => {
    fc.assert(
      fc.property(flowDocument, (doc) => {
        const before = structuredClone(doc);
        expect(specToIr(irToSpec(doc))).toEqual(doc);
        expect(doc).toEqual(before);
      }),
      runs,
    );
  });

  it('irToSpec output validates as form B, with the same warnings as the IR', () => {
    fc.assert(
      fc.property(flowDocument, (doc) => {
        const res = validateSpecDocument(irToSpec(doc));
        expect(res.errors).toEqual([]);
        expect(res.ok).toBe(true);
        expect(res.warnings.map((w) => w.code)).toEqual(validateFlowDocument(doc).warnings.map((w) => w.code));
        expect(res.ir).toEqual(doc);
      }),
      runs,
    );
  });

  it('survives YAML and JSON text, and keeps the content hash', () => {
    fc.assert(
      fc.property(flowDocument, fc.constantFrom('yaml' as const, 'json' as const), (doc, format) => {
        const written = stringifyFlowDocumentText(irToSpec(doc), format);
        const parsed = parseFlowDocumentText(written, format === 'json' ? 'application/json' : 'application/yaml') as unknown as SpecDocument;
        const back = specToIr(parsed);
        expect(canonicalHash(back)).toBe(canonicalHash(doc));
        expect(validateSpecDocument(parsed).ok).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('irToSpec is stable across a round trip', () => {
    fc.assert(
      fc.property(flowDocument, (doc) => {
        const spec = irToSpec(doc);
        expect(irToSpec(specToIr(spec))).toEqual(spec);
      }),
      runs,
    );
  });

  it('gives every node a unique key and keeps node order', () => {
    fc.assert(
      fc.property(flowDocument, (doc) => {
        const spec = irToSpec(doc);
        expect(Object.keys(spec.nodes)).toHaveLength(doc.nodes.length);
        expect(Object.values(spec.nodes).map((n) => n['x-id'])).toEqual(doc.nodes.map((n) => n.id));
      }),
      runs,
    );
  });
});
