// Validates every Kubernetes manifest under deploy/kubernetes/ (examples/
// included) against the API's OpenAPI schemas, without a cluster:
// kubernetes-models (npm) builds each document as its typed model and
// validates it (JSON Schema, ajv). A kustomization.yaml is checked to name
// files that exist.
// With --order RENDERED, checks instead the output of `kubectl kustomize`
// (the order `kubectl apply -k` creates objects in): no namespaced object may
// come before the Namespace it lives in, when that Namespace is among them.
// Usage: node check-manifests.mjs DEPLOY_DIR | --order RENDERED_YAML
//        (run by scripts/check-manifests)
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';

function checkOrder(file) {
  const created = new Set();
  const declared = new Set();
  const objects = [];
  for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const object = document.toJS();
    if (object === null) continue;
    objects.push(object);
    if (object.kind === 'Namespace') declared.add(object.metadata.name);
  }
  let failures = 0;
  for (const object of objects) {
    const where = `${object.kind} ${object.metadata?.name ?? ''}`;
    if (object.kind === 'Namespace') created.add(object.metadata.name);
    const ns = object.metadata?.namespace;
    if (ns && declared.has(ns) && !created.has(ns)) {
      console.error(`check-manifests: ${where} comes before its Namespace ${ns}`);
      failures++;
    }
  }
  console.log(`check-manifests: ${objects.length} objects in apply order, ${failures} before their Namespace`);
  process.exit(failures === 0 && objects.length > 0 ? 0 : 1);
}

function yamlFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...yamlFiles(path));
    else if (entry.endsWith('.yaml')) files.push(path);
  }
  return files;
}

if (process.argv[2] === '--order') checkOrder(process.argv[3]);

const dir = process.argv[2];
let failures = 0;
let checked = 0;
for (const path of yamlFiles(dir)) {
  const file = relative(dir, path);
  const documents = parseAllDocuments(readFileSync(path, 'utf8'));
  for (const document of documents) {
    if (document.errors.length > 0) {
      console.error(`${file}: not YAML: ${document.errors[0].message}`);
      failures++;
      continue;
    }
    const object = document.toJS();
    if (object === null) continue;
    const { apiVersion, kind } = object;
    const where = `${file}: ${apiVersion} ${kind} ${object.metadata?.name ?? ''}`;
    if (kind === 'Kustomization') {
      for (const resource of object.resources ?? []) {
        if (!existsSync(join(dirname(path), resource))) {
          console.error(`${where}: resources names ${resource}, which does not exist`);
          failures++;
        }
      }
      checked++;
      continue;
    }
    let Model;
    try {
      Model = (await import(`kubernetes-models/${apiVersion}/${kind}`))[kind];
    } catch {
      console.log(`${where}: no schema in kubernetes-models (not a core API kind), skipped`);
      continue;
    }
    try {
      new Model(object).validate();
      checked++;
    } catch (error) {
      console.error(`${where}: ${error.message}`);
      failures++;
    }
  }
}
console.log(`check-manifests: ${checked} documents valid, ${failures} invalid`);
process.exit(failures === 0 && checked > 0 ? 0 : 1);
