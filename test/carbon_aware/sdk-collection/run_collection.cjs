// Runs carbonroute.postman_collection.json (the Carbon Aware SDK's integration
// tests, written again, and carbonroute's own requests) through newman against
// a collector, then validates every answer against the SDK's own OpenAPI
// document (../sdk-openapi/sdk_openapi.cjs: status, media type, schema).
//
// Usage: NODE_PATH=<npm tools> node run_collection.cjs BASE_URL FROM TO PJM BE
//   FROM, TO: the RFC 3339 range the collector has readings for; PJM, BE: the
//   gCO2eq/kWh its static provider serves for US-MIDA-PJM and BE.
// Prints newman's summary and one line per validated answer; exits 1 on any
// failed assertion or invalid answer. (test/integration/sdk_collection_test.cc)
'use strict';
const path = require('node:path');
const newman = require('newman');
const { documentFile, validateAnswer, canFail } = require('../sdk-openapi/sdk_openapi.cjs');

const [baseUrl, from, to, pjm, be] = process.argv.slice(2);
if (!be) {
  console.error('usage: node run_collection.cjs BASE_URL FROM TO PJM BE');
  process.exit(2);
}
if (!canFail()) {
  console.error('the OpenAPI validator does not tell a valid EmissionsData from an invalid one');
  process.exit(1);
}

function validate(execution) {
  const { request, response } = execution;
  const where = `${request.method} ${request.url.getPathWithQuery()}`;
  if (!response) return [`${where}: no answer`];
  const { id, problems } = validateAnswer({
    method: request.method,
    pathname: '/' + request.url.path.join('/'),
    status: response.code,
    contentType: response.headers.get('Content-Type'),
    body: response.stream ? response.stream.toString('utf8') : '',
  });
  if (problems.length === 0) {
    console.log(`valid against the SDK's OpenAPI document: ${where} → ${response.code} (${id})`);
  }
  return problems.map((problem) => `${where}: ${problem}`);
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
  console.log(`${summary.run.executions.length} answers validated against ${path.relative(path.join(__dirname, '..', '..', '..'), documentFile)}: ${invalid.length} invalid; newman: ${failed} failed assertions`);
  process.exit(failed === 0 && invalid.length === 0 ? 0 : 1);
});
