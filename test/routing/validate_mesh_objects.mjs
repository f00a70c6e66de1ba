// Validates Kubernetes objects written as JSON files against the Istio and
// Gateway API schemas (@kubernetes-models/istio, @kubernetes-models/gateway-api,
// pinned by scripts/npm/package-lock.json): what routing writes must be what
// the API server would take. Those schemas check types only; Istio's own rules
// for `distribute` are routing/istio_distribute.h's.
// Usage: copied beside a node_modules link to the npm tools (ES modules
// resolve from the script's folder), then: node validate_mesh_objects.mjs FILE...
// Exits 1 naming the file and the field of each invalid object.
import { readFileSync } from 'node:fs';

let failures = 0;
for (const file of process.argv.slice(2)) {
  const object = JSON.parse(readFileSync(file, 'utf8'));
  const { apiVersion, kind } = object;
  let Model;
  for (const models of ['@kubernetes-models/istio', '@kubernetes-models/gateway-api']) {
    try {
      Model = (await import(`${models}/${apiVersion}/${kind}`))[kind];
      break;
    } catch {}
  }
  if (!Model) {
    console.error(`${file}: no schema for ${apiVersion} ${kind}`);
    failures++;
    continue;
  }
  try {
    new Model(object).validate();
    console.log(`${file}: ${apiVersion} ${kind} valid`);
  } catch (error) {
    console.error(`${file}: ${error.message}`);
    failures++;
  }
}
process.exit(failures === 0 ? 0 : 1);
