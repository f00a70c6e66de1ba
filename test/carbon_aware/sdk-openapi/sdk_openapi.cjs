// Validates an answer of the Carbon Aware SDK's Web API against the SDK's own
// OpenAPI document (swagger.yaml beside this file; NOTICE.md says where it is
// from): the status must be one the operation lists, the Content-Type one of
// its media types (ASP.NET Core's application/problem+json taken as the JSON
// the document names), the body valid against its schema. ajv reads OpenAPI
// 3.0's `nullable`; the formats date-time, double, int32 and time-span (.NET's
// TimeSpan, "[-][d.]hh:mm:ss[.fffffff]") are checked. Routes match ignoring
// case, as ASP.NET Core matches them.
//
// Used by ../sdk-collection/run_collection.cjs and validate_answers.cjs; needs
// NODE_PATH to hold the pinned npm tools (yaml, ajv, ajv-formats).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');

const documentFile = path.join(__dirname, 'swagger.yaml');
const openApi = YAML.parse(fs.readFileSync(documentFile, 'utf8'));
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv, ['date-time']);
ajv.addFormat('double', { type: 'number', validate: Number.isFinite });
ajv.addFormat('int32', { type: 'number', validate: (n) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
ajv.addFormat('time-span', /^-?(\d+\.)?\d{2}:\d{2}:\d{2}(\.\d{1,7})?$/);
ajv.addSchema(openApi, 'sdk');

// The operation answering `method` `pathname`; undefined if none.
function operationFor(method, pathname) {
  for (const [route, operations] of Object.entries(openApi.paths)) {
    if (route.toLowerCase() === pathname.toLowerCase()) return operations[method.toLowerCase()];
  }
  return undefined;
}

// '#/components/schemas/X' inside the document, as a reference ajv resolves in 'sdk'.
function rebase(schema) {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"sdk#/'));
}

// The problems of one answer (empty when it is valid), and the operation's id.
function validateAnswer({ method, pathname, status, contentType, body }) {
  const operation = operationFor(method, pathname);
  if (!operation) return { problems: [`${pathname} is not an operation of the SDK's OpenAPI document`] };
  const id = operation.operationId;
  const declared = operation.responses[String(status)];
  if (!declared) return { id, problems: [`status ${status} is not one ${id} lists`] };
  if (!declared.content) {
    return { id, problems: body.length > 0 ? ['a body where none is declared'] : [] };
  }
  const type = (contentType || '').toLowerCase();
  const base = type.split(';')[0].trim();
  const types = Object.keys(declared.content);
  const mediaType = types.find((t) => t === type) || types.find((t) => t === base) ||
    (base === 'application/problem+json' ? 'application/json' : undefined);
  if (!mediaType) return { id, problems: [`Content-Type "${type}" is none of ${types.join(', ')}`] };
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return { id, problems: [`the body is not JSON: ${error.message}`] };
  }
  const check = ajv.compile(rebase(declared.content[mediaType].schema));
  if (check(parsed)) return { id, problems: [] };
  const named = (e) => (e.params && e.params.additionalProperty ? ` "${e.params.additionalProperty}"` : '');
  return { id, problems: check.errors.map((e) => `${e.instancePath || '/'} ${e.message}${named(e)} (${e.schemaPath})`) };
}

// The validator must be able to fail: true when it refuses a wrong EmissionsData and takes a right one.
function canFail() {
  const emissionsData = ajv.compile({ $ref: 'sdk#/components/schemas/EmissionsData' });
  return emissionsData({ location: 'eastus', time: '2022-05-10T00:00:00Z', rating: 1, duration: '01:00:00' }) === true &&
    emissionsData({ location: 'eastus', time: 'yesterday', rating: 'high', extra: 1 }) === false;
}

module.exports = { documentFile, validateAnswer, canFail };
