#!/usr/bin/env node
// `npm run build`: compiles src/ into dist/ (tsconfig.build.json) from scratch, so a deleted source
// leaves no stale file behind, and stamps the build with the time it started. `npm start`
// (scripts/start.mjs) builds again only when a source is newer than that stamp.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
const stampOf = (root) => join(root, 'dist', '.build-stamp');
/** Besides src/, what changes the build: the compiler's settings and the package (its type, dependencies). */
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The newest modification time of any input, in ms. */
function newestInput(root) {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  visit(join(root, 'src'));
  for (const file of INPUTS) if (existsSync(join(root, file))) visit(join(root, file));
  return newest;
}

/** Why dist/ must be built again, or undefined when it is current. */
export function staleReason(root = ROOT) {
  const stamp = stampOf(root);
  if (!existsSync(stamp)) return existsSync(join(root, 'dist')) ? 'dist/ was not built by npm run build' : 'dist/ is missing';
  return statSync(stamp).mtimeMs < newestInput(root) ? 'a source is newer than dist/' : undefined;
}

/** Compiles from scratch; throws when the compiler is missing or reports errors. */
export function build() {
  const started = Date.now();
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    throw new Error('TypeScript is not installed (it is a dev dependency): run npm install, or deploy a built dist/');
  }
  rmSync(DIST, { recursive: true, force: true });
  const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`the build failed (tsc exited with ${result.status ?? result.signal})`);
  // The start time, not the end: a source saved while tsc ran is newer, and the next start builds again.
  writeFileSync(stampOf(ROOT), '');
  utimesSync(stampOf(ROOT), started / 1000, started / 1000);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    build();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
