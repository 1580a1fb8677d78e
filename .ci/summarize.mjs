// Adds up vitest JSON reports, and checks run outside vitest (`--check name=pass|fail`, e.g. the
// soak), and prints the closing line CI is judged by. A report that is missing or unreadable (the
// run crashed) counts as one failure, never as a pass.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
const args = process.argv.slice(2);
const files = [];
for (let i = 0; i < args.length; i += 1) {
  if (args[i] !== '--check') {
    files.push(args[i]);
    continue;
  }
  const [name, outcome] = (args[++i] ?? '').split('=');
  if (outcome === 'pass') passed += 1;
  else {
    console.error(`check ${name || '(unnamed)'}: ${outcome || 'no outcome'}`);
    failed += 1;
  }
}
for (const file of files) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
    // A suite that crashed before its tests ran has no failed tests: count the suite.
    if (report.success === false && report.numFailedTests === 0) failed += Math.max(1, report.numFailedTestSuites);
    if (report.numTotalTests === 0) failed += 1;
  } catch {
    console.error(`no test report at ${file}`);
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
