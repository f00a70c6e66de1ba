// Validates every Kubernetes manifest under the folders given (deploy/kubernetes/,
// deploy/karmada/'s karmada-apiserver/, host/, examples/) against the API's OpenAPI
// schemas, without a cluster: kubernetes-models (npm) builds each document as its
// typed model and validates it (JSON Schema, ajv). An object of a custom kind whose
// CustomResourceDefinition is among the folders is validated against that CRD's
// openAPIV3Schema (ajv), as the API server would; other custom kinds (Karmada's own,
// Knative's) are named and skipped. A kustomization.yaml is checked to name files
// that exist.
// With --order RENDERED, checks instead the output of `kubectl kustomize`
// (the order `kubectl apply -k` creates objects in): no namespaced object may
// come before the Namespace it lives in, when that Namespace is among them.
// Each of carbonroute's workloads meets Pod Security "restricted" with a read-only root.
// Usage: node check-manifests.mjs DEPLOY_DIR... | --order RENDERED_YAML
//        (run by scripts/check-manifests)
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import Ajv from 'ajv';

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

// Every document of every folder, parsed once: [{file, document}].
const documents = [];
let failures = 0;
let checked = 0;
for (const dir of process.argv.slice(2)) {
  for (const path of yamlFiles(dir)) {
    const file = relative(join(dir, '..'), path);
    for (const document of parseAllDocuments(readFileSync(path, 'utf8'))) {
      documents.push({ dir, path, file, document });
    }
  }
}
// A CRD's OpenAPI v3.0 schema as the JSON Schema ajv validates, with the API
// server's strict field validation (kubectl's default since 1.27: an unknown
// field is an error): an object schema that lists properties admits no others,
// unless x-kubernetes-preserve-unknown-fields; boolean exclusiveMinimum/Maximum
// (OpenAPI 3.0) become numbers (JSON Schema draft 7); nullable admits null.
function toJsonSchema(schema) {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-kubernetes-') || key === 'nullable') continue;
    out[key] = ['properties', 'patternProperties'].includes(key)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSchema(v)]))
      : toJsonSchema(value);
  }
  for (const [bound, limit] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']]) {
    if (out[bound] === true) { out[bound] = out[limit]; delete out[limit]; }
    if (out[bound] === false) delete out[bound];
  }
  if (out.properties && out.additionalProperties === undefined &&
      !schema['x-kubernetes-preserve-unknown-fields']) {
    out.additionalProperties = false;
  }
  if (schema.nullable && out.type) out.type = [out.type, 'null'];
  return out;
}
// The CRDs among them: "group/version Kind" → a validator of the version's schema.
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const crdSchemas = new Map();
for (const { document } of documents) {
  const object = document.toJS();
  if (object?.kind !== 'CustomResourceDefinition') continue;
  for (const version of object.spec?.versions ?? []) {
    const schema = version.schema?.openAPIV3Schema;
    if (schema) {
      crdSchemas.set(`${object.spec.group}/${version.name} ${object.spec.names.kind}`,
                     ajv.compile(toJsonSchema(schema)));
    }
  }
}
// carbonroute's own containers: liveness never depends on an upstream (/livez:
// the process's loops turn), readiness says it has something to serve (the
// collector's /readyz, a controller's /healthz); a liveness probe on /healthz
// or /readyz would restart a container behind a slow provider or API server.
function checkProbes(object, where) {
  if (!['Deployment', 'DaemonSet', 'StatefulSet'].includes(object.kind)) return 0;
  let problems = 0;
  for (const container of object.spec?.template?.spec?.containers ?? []) {
    if (!String(container.image ?? '').includes('carbonroute/carbonroute:')) continue;
    const live = container.livenessProbe?.httpGet?.path;
    if (live !== '/livez') {
      console.error(`${where}: container ${container.name}: livenessProbe must GET /livez ` +
                    `(it has ${live ?? 'none'}): only /livez never depends on an upstream`);
      problems++;
    }
    if (!container.readinessProbe?.httpGet?.path) {
      console.error(`${where}: container ${container.name}: no readinessProbe`);
      problems++;
    }
  }
  // A DaemonSet that tolerates every taint lands on Liqo's virtual nodes (another cluster, where
  // its Pod stays Pending in OffloadingBackOff) unless its node affinity keeps it off them.
  if (object.kind === 'DaemonSet' &&
      (object.spec?.template?.spec?.tolerations ?? []).some(t => t.operator === 'Exists' && !t.key)) {
    const terms = object.spec.template.spec.affinity?.nodeAffinity
      ?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    const keepsOff = terms.length > 0 && terms.every(term => (term.matchExpressions ?? []).some(
      e => e.key === 'liqo.io/type' && e.operator === 'NotIn' && (e.values ?? []).includes('virtual-node')));
    if (!keepsOff) {
      console.error(`${where}: tolerates every taint but has no node affinity ` +
                    `liqo.io/type NotIn [virtual-node]: it would land on Liqo's virtual nodes`);
      problems++;
    }
  }
  return problems;
}

// Pod Security "restricted" (https://kubernetes.io/docs/concepts/security/pod-security-standards/),
// what the API server's admission checks, plus carbonroute's read-only root filesystem: each of
// carbonroute's workloads (the examples are the user's, and run in their namespaces).
const safeSysctls = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range']);
function checkRestricted(object, file, where) {
  if (!['Deployment', 'DaemonSet', 'StatefulSet'].includes(object.kind) || file.includes('examples')) return 0;
  const pod = object.spec?.template?.spec ?? {};
  const problems = [];
  const podContext = pod.securityContext ?? {};
  for (const sysctl of podContext.sysctls ?? []) {
    if (!safeSysctls.has(sysctl.name)) problems.push(`sysctl ${sysctl.name} is not a safe one`);
  }
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) {
    if (pod[field]) problems.push(`${field}: true`);
  }
  for (const volume of pod.volumes ?? []) {
    if (volume.hostPath) problems.push(`volume ${volume.name} is a hostPath`);
  }
  for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    const context = container.securityContext ?? {};
    const name = `container ${container.name}`;
    if (context.privileged) problems.push(`${name}: privileged`);
    if (context.allowPrivilegeEscalation !== false) problems.push(`${name}: allowPrivilegeEscalation is not false`);
    if (!(context.capabilities?.drop ?? []).includes('ALL')) problems.push(`${name}: capabilities do not drop ALL`);
    for (const added of context.capabilities?.add ?? []) {
      if (added !== 'NET_BIND_SERVICE') problems.push(`${name}: adds capability ${added}`);
    }
    if ((context.runAsNonRoot ?? podContext.runAsNonRoot) !== true) problems.push(`${name}: runAsNonRoot is not true`);
    if (!((context.runAsUser ?? podContext.runAsUser) > 0)) problems.push(`${name}: no explicit non-zero runAsUser`);
    const seccomp = (context.seccompProfile ?? podContext.seccompProfile)?.type;
    if (!['RuntimeDefault', 'Localhost'].includes(seccomp)) problems.push(`${name}: seccompProfile is ${seccomp ?? 'unset'}`);
    if (context.readOnlyRootFilesystem !== true) problems.push(`${name}: root filesystem not read-only`);
  }
  for (const problem of problems) console.error(`${where}: not Pod Security "restricted": ${problem}`);
  return problems.length;
}

for (const { path, file, document } of documents) {
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
  const crd = crdSchemas.get(`${apiVersion} ${kind}`);
  if (crd) {
    if (crd(object)) {
      checked++;
    } else {
      for (const error of crd.errors) {
        console.error(`${where}: ${error.instancePath || '/'} ${error.message}` +
                      (error.params?.additionalProperty ? ` (${error.params.additionalProperty})` : ''));
      }
      failures++;
    }
    continue;
  }
  let Model;
  // The core API's kinds, then the meshes' (a DestinationRule, an HTTPRoute).
  for (const models of ['kubernetes-models', '@kubernetes-models/istio',
                        '@kubernetes-models/gateway-api']) {
    try {
      Model = (await import(`${models}/${apiVersion}/${kind}`))[kind];
      break;
    } catch {}
  }
  if (!Model) {
    console.log(`${where}: no schema in kubernetes-models (core, Istio, Gateway API) nor a CRD ` +
                `here, skipped`);
    continue;
  }
  try {
    new Model(object).validate();
    const problems = checkProbes(object, where) + checkRestricted(object, file, where);
    failures += problems;
    if (problems === 0) checked++;
  } catch (error) {
    console.error(`${where}: ${error.message}`);
    failures++;
  }
}
console.log(`check-manifests: ${checked} documents valid, ${failures} invalid`);
process.exit(failures === 0 && checked > 0 ? 0 : 1);
