// Validates saved answers of GET PATH against the SDK's OpenAPI document
// (sdk_openapi.cjs). Usage: NODE_PATH=<npm tools> node validate_answers.cjs
// PATH STATUS CONTENT_TYPE FILE...; prints each problem; exits 1 if any
// answer is invalid, 2 on a usage error.
// (test/integration/carbon_aware_api_binary_test.cc)
'use strict';
const fs = require('node:fs');
const { validateAnswer, canFail } = require('./sdk_openapi.cjs');

const [pathname, status, contentType, ...files] = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node validate_answers.cjs PATH STATUS CONTENT_TYPE FILE...');
  process.exit(2);
}
if (!canFail()) {
  console.error('the OpenAPI validator does not tell a valid EmissionsData from an invalid one');
  process.exit(1);
}
let invalid = 0;
for (const file of files) {
  const { id, problems } = validateAnswer({
    method: 'GET', pathname, status: Number(status), contentType, body: fs.readFileSync(file, 'utf8'),
  });
  for (const problem of problems) console.log(`${file}: ${id || pathname}: ${problem}`);
  if (problems.length > 0) ++invalid;
}
process.exit(invalid === 0 ? 0 : 1);
