import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseImage, renderKustomization, type K8sObject } from './kustomize';

// The renderer is only trustworthy if it behaves like kustomize on the features k8s/ uses; each test
// builds a throwaway kustomization tree and checks one feature.
let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'kustomize-spec-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(rel: string, text: string): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: { app: web }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: registry.local:5000/acme/web:1.0
          ports: [{ name: http, containerPort: 80 }]
          env: [{ name: A, value: "1" }, { name: B, value: "2" }]
        - name: sidecar
          image: busybox
`;

const service = `
apiVersion: v1
kind: Service
metadata: { name: web }
spec:
  selector: { app: web }
  ports: [{ name: http, port: 80 }]
`;

function base(extra = ''): void {
  write('base/deploy.yaml', deployment);
  write('base/svc.yaml', `---\n${service}\n---\n`);
  write(
    'base/kustomization.yaml',
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [deploy.yaml, svc.yaml]\n${extra}`,
  );
}

function overlay(body: string): K8sObject[] {
  write(
    'overlay/kustomization.yaml',
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\n${body}`,
  );
  return renderKustomization(path.join(root, 'overlay'));
}

const find = (objs: K8sObject[], kind: string): any => objs.find((o) => o.kind === kind);

describe('renderKustomization', () => {
  it('loads file and directory resources, skipping empty YAML documents', () => {
    base();
    const objs = overlay('');
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Deployment/web', 'Service/web']);
  });

  it('sets the namespace and labels, on pod templates only with includeTemplates', () => {
    base();
    const objs = overlay(
      `namespace: team\nlabels:\n  - pairs: { env: dev }\n    includeTemplates: true\n  - pairs: { tier: front }\n`,
    );
    const d = find(objs, 'Deployment');
    expect(objs.every((o) => o.metadata.namespace === 'team')).toBe(true);
    expect(d.metadata.labels).toEqual({ app: 'web', env: 'dev', tier: 'front' });
    expect(d.spec.template.metadata.labels).toEqual({ app: 'web', env: 'dev' });
    expect(d.spec.selector.matchLabels).toEqual({ app: 'web' });
  });

  it('rewrites image tags and names, keeping a registry port in the name', () => {
    base();
    const objs = overlay(
      `images:\n  - name: registry.local:5000/acme/web\n    newTag: "2.0"\n  - name: busybox\n    newName: mirror/busybox\n    digest: sha256:abc\n`,
    );
    const [web, sidecar] = find(objs, 'Deployment').spec.template.spec.containers;
    expect(web.image).toBe('registry.local:5000/acme/web:2.0');
    expect(sidecar.image).toBe('mirror/busybox@sha256:abc');
  });

  it('merges a strategic merge patch: containers by name, env by name, null deletes', () => {
    base();
    write(
      'overlay/p.yaml',
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  replicas: null\n  template:\n    spec:\n      containers:\n        - name: web\n          env: [{ name: B, value: "20" }, { name: C, value: "3" }]\n`,
    );
    const d = find(overlay('patches:\n  - path: p.yaml\n'), 'Deployment');
    expect(d.spec.replicas).toBeUndefined();
    expect(d.spec.template.spec.containers).toHaveLength(2);
    expect(d.spec.template.spec.containers[0].env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '20' },
      { name: 'C', value: '3' },
    ]);
    expect(d.spec.template.spec.containers[0].image).toBe('registry.local:5000/acme/web:1.0');
  });

  it('applies an inline JSON 6902 patch to every target match', () => {
    base();
    const objs = overlay(
      'patches:\n  - target: { kind: Service }\n    patch: |-\n      - op: replace\n        path: /spec/ports/0/port\n        value: 8080\n',
    );
    expect(find(objs, 'Service').spec.ports[0].port).toBe(8080);
    expect(find(objs, 'Deployment').spec.template.spec.containers[0].ports[0].containerPort).toBe(80);
  });

  it('fails a JSON 6902 replace of a missing path, as kustomize does', () => {
    base();
    expect(() =>
      overlay(
        'patches:\n  - target: { kind: Service }\n    patch: |-\n      - op: replace\n        path: /spec/nothing\n        value: 1\n',
      ),
    ).toThrow();
  });

  it('treats the target name as an anchored regular expression', () => {
    base();
    expect(() =>
      overlay(
        'patches:\n  - target: { kind: Service, name: we }\n    patch: "[{op: add, path: /metadata/labels, value: {}}]"\n',
      ),
    ).toThrow(/matches no resource/);
  });

  it('rejects patches that match nothing and JSON 6902 patches without a target', () => {
    base();
    write(
      'overlay/p.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: other }\nspec: { replicas: 1 }\n',
    );
    expect(() => overlay('patches:\n  - path: p.yaml\n')).toThrow(/matches no resource/);
    expect(() => overlay('patches:\n  - patch: "[{op: remove, path: /spec}]"\n')).toThrow(/needs a target/);
  });

  it('refuses kustomize features it does not implement instead of ignoring them', () => {
    base();
    expect(() => overlay('namePrefix: x-\n')).toThrow(/unsupported kustomization field "namePrefix"/);
    expect(() => overlay('commonLabels: { a: b }\n')).toThrow(
      /unsupported kustomization field "commonLabels"/,
    );
    expect(() => overlay('labels:\n  - pairs: { a: b }\n    includeSelectors: true\n')).toThrow(
      /includeSelectors/,
    );
    expect(() => overlay('patches:\n  - target: { labelSelector: "a=b" }\n    patch: "[]"\n')).toThrow(
      /labelSelector/,
    );
    write(
      'overlay/d.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  $patch: replace\n',
    );
    expect(() => overlay('patches:\n  - path: d.yaml\n')).toThrow(/\$patch/);
  });

  it('rejects duplicate resources', () => {
    base();
    write('overlay/again.yaml', service);
    write(
      'overlay/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base, again.yaml]\n',
    );
    expect(() => renderKustomization(path.join(root, 'overlay'))).toThrow(/duplicate resource/);
  });
});

describe('parseImage', () => {
  it('splits name, tag and digest', () => {
    expect(parseImage('node:20')).toEqual({ name: 'node', tag: '20', digest: undefined });
    expect(parseImage('localhost:5000/a/b')).toEqual({ name: 'localhost:5000/a/b', digest: undefined });
    expect(parseImage('a/b:1@sha256:ff')).toEqual({ name: 'a/b', tag: '1', digest: 'sha256:ff' });
  });
});
