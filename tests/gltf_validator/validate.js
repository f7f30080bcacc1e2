// Validate many glTF files in one Node process (the official Khronos validator).
// Usage: node validate.js FILE...  Prints one JSON line per file:
// {"file", "errors", "warnings", "messages": [{code, severity, pointer, message}]}
"use strict";
const fs = require("fs");
const path = require("path");
const validator = require("gltf-validator");

async function check(file) {
  const folder = path.dirname(file);
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        fs.readFile(path.join(folder, decodeURIComponent(uri)), (err, data) =>
          err ? reject(err.toString()) : resolve(new Uint8Array(data)));
      }),
  });
  const issues = report.issues;
  return {
    file,
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    messages: issues.messages.map((m) => ({
      code: m.code, severity: m.severity, pointer: m.pointer, message: m.message,
    })),
  };
}

(async () => {
  for (const file of process.argv.slice(2)) {
    let line;
    try {
      line = await check(file);
    } catch (err) {
      line = { file, errors: 1, warnings: 0, messages: [{ code: "CRASH", severity: 0, message: String(err) }] };
    }
    process.stdout.write(JSON.stringify(line) + "\n");
  }
})();
