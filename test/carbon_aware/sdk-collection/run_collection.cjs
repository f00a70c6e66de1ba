// Runs carbonroute.postman_collection.json (the Carbon Aware SDK's integration
// tests, written again, and carbonroute's own requests) through newman against
// a collector, then validates every answer against the SDK's own OpenAPI
// document (../sdk-openapi/swagger.yaml): the status must be one the operation
// lists, the Content-Type one of its media types, the body valid against its
// schema (ajv; OpenAPI 3.0's `nullable` as ajv reads it, the formats
// date-time, double, int32 and time-span checked).
//
// Usage: NODE_PATH=<npm tools> node run_collection.cjs BASE_URL FROM TO PJM BE
//   FROM, TO: the RFC 3339 range the collector has readings for; PJM, BE: the
//   gCO2eq/kWh its static provider serves for US-MIDA-PJM and BE.
// Prints newman's summary and one line per validated answer; exits 1 on any
// failed assertion or invalid answer. (test/integration/sdk_collection_test.cc)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const newman = require('newman');
const YAML = require('yaml');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');

const [baseUrl, from, to, pjm, be] = process.argv.slice(2);
if (!be) {
  console.error('usage: node run_collection.cjs BASE_URL FROM TO PJM BE');
  process.exit(2);
}

const openApiFile = path.join(__dirname, '..', 'sdk-openapi', 'swagger.yaml');
const openApi = YAML.parse(fs.readFileSync(openApiFile, 'utf8'));
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv, ['date-time']);
ajv.addFormat('double', { type: 'number', validate: Number.isFinite });
ajv.addFormat('int32', { type: 'number', validate: (n) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
// .NET's TimeSpan as System.Text.Json writes it: [-][d.]hh:mm:ss[.fffffff]
ajv.addFormat('time-span', /^-?(\d+\.)?\d{2}:\d{2}:\d{2}(\.\d{1,7})?$/);
ajv.addSchema(openApi, 'sdk');

// The validator must be able to fail: a wrong answer is refused before any real one is judged.
const emissionsData = ajv.compile({ $ref: 'sdk#/components/schemas/EmissionsData' });
if (emissionsData({ location: 'eastus', time: '2022-05-10T00:00:00Z', rating: 1, duration: '01:00:00' }) !== true ||
    emissionsData({ location: 'eastus', time: 'yesterday', rating: 'high', extra: 1 }) !== false) {
  console.error('the OpenAPI validator does not tell a valid EmissionsData from an invalid one');
  process.exit(1);
}

// The OpenAPI operation answering GET `pathname`: ASP.NET Core matches routes ignoring case.
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

function validate(execution) {
  const { request, response } = execution;
  const where = `${request.method} ${request.url.getPathWithQuery()}`;
  if (!response) return [`${where}: no answer`];
  const operation = operationFor(request.method, '/' + request.url.path.join('/'));
  if (!operation) return [`${where}: not an operation of the SDK's OpenAPI document`];
  const declared = operation.responses[String(response.code)];
  if (!declared) return [`${where}: status ${response.code} is not one the operation lists`];
  if (!declared.content) {
    return response.stream && response.stream.length > 0 ? [`${where}: a body where none is declared`] : [];
  }
  const contentType = (response.headers.get('Content-Type') || '').toLowerCase();
  // The SDK's server answers errors as application/problem+json (ASP.NET Core's
  // ProblemDetails); the document names only the JSON media types.
  const base = contentType.split(';')[0].trim();
  const mediaType = Object.keys(declared.content).find((type) => type === contentType) ||
    Object.keys(declared.content).find((type) => type === base) ||
    (base === 'application/problem+json' ? 'application/json' : undefined);
  if (!mediaType) return [`${where}: Content-Type "${contentType}" is none of ${Object.keys(declared.content).join(', ')}`];
  const check = ajv.compile(rebase(declared.content[mediaType].schema));
  let body;
  try {
    body = JSON.parse(response.stream.toString('utf8'));
  } catch (error) {
    return [`${where}: the body is not JSON: ${error.message}`];
  }
  if (check(body)) {
    console.log(`valid against the SDK's OpenAPI document: ${where} → ${response.code} (${operation.operationId})`);
    return [];
  }
  return check.errors.map((e) => `${where}: ${e.instancePath || '/'} ${e.message} (${e.schemaPath})`);
}

newman.run({
  collection: require('./carbonroute.postman_collection.json'),
  reporters: ['cli'],
  reporter: { cli: { noBanner: true } },
  envVar: [
    { key: 'baseUrl', value: baseUrl },
    { key: 'from', value: from },
    { key: 'to', value: to },
    { key: 'pjm', value: pjm },
    { key: 'be', value: be },
  ],
}, (error, summary) => {
  if (error) {
    console.error(`newman: ${error.message}`);
    process.exit(1);
  }
  const invalid = summary.run.executions.flatMap(validate);
  for (const line of invalid) console.error(`INVALID ${line}`);
  const failed = summary.run.failures.length;
  console.log(`${summary.run.executions.length} answers validated against ${path.relative(process.cwd(), openApiFile)}: ${invalid.length} invalid; newman: ${failed} failed assertions`);
  process.exit(failed === 0 && invalid.length === 0 ? 0 : 1);
});
