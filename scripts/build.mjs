#!/usr/bin/env node
// `npm run build`: compiles src/ into dist/ from scratch, so a deleted source
// leaves no stale file behind, and stamps the build with the time it started. `npm start`
// (scripts/start.mjs) builds again only when a source is newer than that stamp.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
const stampOf = (root) => join(root, 'dist', '.build-stamp');
/** Besides src/, what changes the build: the compiler's settings and the package (its type, dependencies). */
const INPUTS = ['tsconfig.json', 'package.json'];

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

/**
 * Compiles from scratch, file by file with esbuild (what tsx runs on each file; src/ keeps to what
 * one file alone can compile: isolatedModules, verbatimModuleSyntax), into the same layout tsc would
 * write. Types are checked by `npm run lint` (tsc --noEmit), not here: a build takes ~2 s instead of
 * ~50 s of tsc checking src/ again, for `npm start` on a fresh machine and for CI. Throws when esbuild
 * is missing or a file does not compile.
 */
export function build() {
  const started = Date.now();
  const transformSync = loadEsbuild().transformSync;
  rmSync(DIST, { recursive: true, force: true });
  const src = join(ROOT, 'src');
  for (const file of sourceFiles(src)) {
    const target = join(DIST, relative(src, file)).replace(/\.ts$/, '.js');
    let code;
    try {
      ({ code } = transformSync(readFileSync(file, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcefile: file,
        // tsconfig.json's module semantics: type-only imports erased, class fields defined (ES2022).
        tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
      }));
    } catch (error) {
      throw new Error(`the build failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, code);
  }
  // The start time, not the end: a source saved while the build ran is newer, and the next start builds again.
  writeFileSync(stampOf(ROOT), '');
  utimesSync(stampOf(ROOT), started / 1000, started / 1000);
}

/** The TypeScript sources under `dir` (not declaration files); anything else in src/ is documentation. */
function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function loadEsbuild() {
  try {
    return createRequire(import.meta.url)('esbuild');
  } catch {
    throw new Error('esbuild is not installed (it comes with npm install): run npm install, or deploy a built dist/');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    build();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
