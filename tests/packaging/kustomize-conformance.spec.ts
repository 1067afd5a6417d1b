import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describeIntegration, hasCommand } from '@flowplane/platform/testing';
import { parseAllDocuments } from 'yaml';
import { renderKustomization, type K8sObject } from './kustomize';

// Where kubectl is installed (`apt-get install kubectl` brings kustomize v5 built in), the in-repo
// renderer must produce exactly what `kubectl kustomize` produces for every variant under k8s/.
const k8s = path.resolve(__dirname, '../../k8s');
const id = (o: K8sObject): string =>
  `${o.apiVersion}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

describeIntegration(
  'kustomize renderer conformance with kubectl kustomize',
  hasCommand('kubectl') ? false : 'kubectl not installed',
  { requiredInCi: false },
  () => {
    it.each(['base', 'overlays/dev', 'overlays/prod'])(
      'renders k8s/%s exactly like kubectl kustomize',
      (dir) => {
        const rendered = execFileSync('kubectl', ['kustomize', path.join(k8s, dir)], {
          encoding: 'utf8',
          timeout: 60_000,
        });
        const expected = parseAllDocuments(rendered).map((d) => d.toJS() as K8sObject);
        const actual = renderKustomization(path.join(k8s, dir));
        expect(actual.map(id).sort()).toEqual(expected.map(id).sort());
        const byId = new Map(actual.map((o) => [id(o), o]));
        for (const o of expected) expect(byId.get(id(o))).toEqual(o);
      },
    );
  },
);
