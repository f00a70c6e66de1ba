// Checks deploy/prometheus-operator/ against the Prometheus Operator's API
// types, as pinned by scripts/npm/package-lock.json:
// @kubernetes-models/prometheus-operator, generated from the operator's Go API
// (github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1),
// the same types its CRDs are generated from. Each ServiceMonitor, PodMonitor
// and PrometheusRule is (1) validated by the model (types, required fields,
// enums); (2) written as a TypeScript literal of the model's interface into
// OUT_TS, for tsc's excess-property checks (a misspelt field fails there);
// (3) a PrometheusRule's spec must equal its rule file of deploy/prometheus/
// (the one source of truth) parsed.
// Usage: node check-prometheus-operator.mjs DEPLOY_DIR OUT_TS (run by scripts/check-manifests)
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';

const [deploy, outTs] = process.argv.slice(2);
const dir = join(deploy, 'prometheus-operator');
const kinds = new Set(['ServiceMonitor', 'PodMonitor', 'PrometheusRule']);
let failures = 0;
const seen = new Map();
const literals = [];
for (const entry of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
  for (const document of parseAllDocuments(readFileSync(join(dir, entry), 'utf8'))) {
    const object = document.toJS();
    if (object === null || object.kind === 'Kustomization') continue;
    const where = `${entry}: ${object.kind} ${object.metadata?.name ?? ''}`;
    if (object.apiVersion !== 'monitoring.coreos.com/v1' || !kinds.has(object.kind)) {
      console.error(`${where}: not a monitoring.coreos.com/v1 ServiceMonitor, PodMonitor or PrometheusRule`);
      failures++;
      continue;
    }
    const Model = (await import(`@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/${object.kind}`))[object.kind];
    try {
      new Model(object).validate();
    } catch (error) {
      console.error(`${where}: ${error.message}`);
      failures++;
    }
    seen.set(object.kind, (seen.get(object.kind) ?? 0) + 1);
    literals.push(`// ${where}\nexport const o${literals.length}: I${object.kind} = ${JSON.stringify(object, null, 2)};`);
    if (object.kind === 'PrometheusRule') {
      const source = join(deploy, 'prometheus', `${object.metadata.name}.yaml`);
      if (!isDeepStrictEqual(object.spec, parse(readFileSync(source, 'utf8')))) {
        console.error(`${where}: its spec is not ${source} (run deploy/prometheus-operator/generate.py)`);
        failures++;
      }
    }
  }
}
const imports = [...seen.keys()].map((kind) =>
  `import type { I${kind} } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/${kind}';`);
writeFileSync(outTs, `${imports.join('\n')}\n${literals.join('\n')}\n`);
for (const kind of kinds) {
  if (!seen.has(kind)) {
    console.error(`${dir}: no ${kind}`);
    failures++;
  }
}
console.log(`check-prometheus-operator: ${literals.length} objects (${[...seen].map(([k, n]) => `${n} ${k}`).join(', ')}), ${failures} invalid`);
process.exit(failures === 0 ? 0 : 1);
