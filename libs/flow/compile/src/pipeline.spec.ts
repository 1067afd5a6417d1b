import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { validateSpecDocument } from '@flowplane/flow/ir';
import { asyncApiReport, fixturePath, openApiError } from '../test/format-helpers';
import type { ApiModel } from './model';
import { convertDocument, detectFormat, readDocument, sourceFormat, targetFormat, TARGET_FORMATS, UnknownFormatError, writeDocument } from './pipeline';

/**
 * The conversion matrix of the spec ("Rules: format conversion" item 1) on the realistic sample:
 * flowdef, openapi, asyncapi and businessmodel sources, each converted to every target, every
 * output checked by the validator of its format (or read back).
 */

const sampleText = readFileSync(fixturePath('order-service.flow.yaml'), 'utf8');
const sample = readDocument(sampleText).model as ApiModel;

const sources: Record<string, string> = {
  flowdef: sampleText,
  flowgraph: writeDocument(sample, 'flowgraph').text,
  openapi: writeDocument(sample, 'openapi').text,
  asyncapi: writeDocument(sample, 'asyncapi').text,
  businessmodel: writeDocument(sample, 'businessmodel').text,
};

const errorsOf = (diagnostics: Array<{ severity: string; code: string; message: string }>) => diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`);

describe('conversion matrix', () => {
  it('reads the sample without diagnostics', () => {
    expect(readDocument(sampleText).diagnostics).toEqual([]);
    expect(sample.actions.length).toBeGreaterThan(5);
  });

  it('detects every source format from its keys', () => {
    expect(detectFormat(parse(sources.flowdef))).toBe('forma');
    expect(detectFormat(parse(sources.flowgraph))).toBe('formb');
    expect(detectFormat(JSON.parse(sources.openapi))).toBe('openapi');
    expect(detectFormat(parse(sources.asyncapi))).toBe('asyncapi');
    expect(detectFormat(parse(sources.businessmodel))).toBe('businessmodel');
  });

  for (const [source, text] of Object.entries(sources)) {
    describe(`from ${source}`, () => {
      for (const to of TARGET_FORMATS) {
        // OpenAPI and AsyncAPI carry no workflows: there is no graph to draw (a clear error instead).
        if (to === 'flowgraph' && (source === 'openapi' || source === 'asyncapi')) {
          it('refuses to draw a flow graph without workflows, saying why', () => {
            const result = convertDocument(text, { to });
            expect(result.output).toBeUndefined();
            expect(errorsOf(result.diagnostics)).toEqual(['FMT: a flow graph (form B) is drawn from workflows or a form B graph, and this document has neither']);
          });
          continue;
        }
        it(`converts to ${to} and the output is valid`, async () => {
          const result = convertDocument(text, { to });
          expect(errorsOf(result.diagnostics)).toEqual([]);
          expect(result.output).toBeDefined();
          const out = result.output!.text;
          switch (to) {
            case 'openapi':
              expect(await openApiError(JSON.parse(out))).toBeUndefined();
              break;
            case 'asyncapi':
              expect((await asyncApiReport(parse(out))).errors).toEqual([]);
              break;
            case 'flowgraph': {
              const v = validateSpecDocument(parse(out));
              expect(v.ok ? [] : v.errors).toEqual([]);
              break;
            }
            default: {
              // json, yaml, flowdef and businessmodel read back through the pipeline.
              const again = readDocument(out);
              // OpenAPI carries `x-emits` but no events: read back as form A or the IR, the document
              // names events it does not declare, which is an error there.
              const expected = source === 'openapi' ? again.model!.actions.flatMap((a) => (a.emits ?? []).map((e) => `UNKNOWN_EVENT: action "${a.name}" emits unknown event "${e}"`)) : [];
              expect(errorsOf(again.diagnostics)).toEqual(expected);
              expect(again.model).not.toBeNull();
            }
          }
        });
      }
    });
  }

  it('keeps what each format carries: actions through OpenAPI, events and channels through AsyncAPI, domains through the business model', () => {
    const viaOpenApi = readDocument(sources.openapi).model!;
    const routed = sample.actions.filter((a) => a.method && a.path);
    expect(viaOpenApi.actions.map((a) => `${a.method} ${a.path}`).sort()).toEqual(routed.map((a) => `${a.method} ${a.path}`).sort());
    expect(viaOpenApi.entities.map((e) => e.name).sort()).toEqual(expect.arrayContaining(sample.entities.map((e) => e.name).sort()));

    const viaAsyncApi = readDocument(sources.asyncapi).model!;
    expect(viaAsyncApi.channels.map((c) => c.name).sort()).toEqual(sample.channels.map((c) => c.name).sort());
    expect(viaAsyncApi.events.map((e) => e.name).sort()).toEqual(expect.arrayContaining(sample.events.map((e) => e.name).sort()));

    const viaBm = readDocument(sources.businessmodel).model!;
    expect(viaBm.modules.map((m) => m.name).sort()).toEqual(sample.modules.map((m) => m.name).sort());

    // Form A and the IR's own formats are lossless.
    expect(readDocument(convertDocument(sampleText, { to: 'flowdef' }).output!.text).model).toEqual(sample);
    expect(readDocument(convertDocument(sampleText, { to: 'json' }).output!.text).model).toEqual(sample);
  });

  it('names the valid formats when given an unknown one', () => {
    expect(() => targetFormat('pdf')).toThrow(UnknownFormatError);
    expect(() => targetFormat('pdf')).toThrow('valid: json, yaml, flowdef, flowgraph, openapi, asyncapi, businessmodel');
    expect(() => sourceFormat('word')).toThrow('unknown source format "word"');
  });

  it('reports unparseable and oversized input as diagnostics, never a throw', () => {
    const broken = convertDocument('version: "1.0"\nevents:\n  - name: [x\n', { to: 'json' });
    expect(broken.output).toBeUndefined();
    expect(broken.diagnostics[0]).toMatchObject({ code: 'PARSE', severity: 'error', position: { line: expect.any(Number), column: expect.any(Number) } });
    const big = convertDocument(sampleText, { to: 'json', maxBytes: 100 });
    expect(big.diagnostics[0]).toMatchObject({ code: 'TOO_LARGE' });
    expect(convertDocument('', { to: 'json' }).diagnostics.map((d) => d.code)).toContain('FDL001');
    expect(convertDocument('- a\n- b\n', { to: 'openapi' }).output).toBeUndefined();
  });
});

describe('YAML output read by a YAML 1.1 reader', () => {
  const words = ['on', 'off', 'yes', 'no', 'y', 'n', 'On', 'OFF', 'Yes', 'NO', 'Y', 'N', 'oN'];
  const source = [
    'version: "1.0"',
    'title: "yes"',
    'entities:',
    '  - name: switch',
    '    fields:',
    ...words.map((w) => `      "${w}": { type: enum, enum: [${words.map((v) => `"${v}"`).join(', ')}] }`),
    '',
  ].join('\n');

  it.each(['yaml', 'flowdef', 'asyncapi', 'businessmodel'] as const)('quotes keys and values YAML 1.1 takes as booleans (%s)', (to) => {
    const out = convertDocument(source, { to });
    expect(out.output).toBeDefined();
    const yaml11 = parse(out.output!.text, { version: '1.1' });
    const yaml12 = parse(out.output!.text);
    // Both readers get the same strings back, never true or false.
    expect(yaml11).toEqual(yaml12);
    expect(JSON.stringify(yaml11)).not.toMatch(/:(true|false)\b/);
    if (to === 'yaml' || to === 'flowdef') {
      expect(yaml11.title).toBe('yes');
      expect(Object.keys(yaml11.entities[0].fields)).toEqual(words);
      expect(yaml11.entities[0].fields.oN.enum).toEqual(words);
    }
  });
});
