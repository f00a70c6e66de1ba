// Validates every Kubernetes manifest under deploy/kubernetes/ against the
// API's OpenAPI schemas, without a cluster: kubernetes-models (npm) builds
// each document as its typed model and validates it (JSON Schema, ajv).
// Usage: node check-manifests.mjs DEPLOY_DIR   (run by scripts/check-manifests)
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const dir = process.argv[2];
let failures = 0;
let checked = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
  const documents = parseAllDocuments(readFileSync(join(dir, file), 'utf8'));
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
