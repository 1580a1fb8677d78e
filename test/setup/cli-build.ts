import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

/**
 * The CLI tests run `storefront <command>` as a real process. Under `node --import tsx` every one
 * of those processes spent ~5 s of its ~6 s in the loader hooks (Node 20 runs them on another
 * thread, one round trip per module). Compiled file by file ahead (what tsx runs on each file) a
 * start still took ~1.7 s, most of it Node resolving and loading ~1,400 modules one by one (src/,
 * kysely's and typebox's files). So the global setup bundles src/main.ts once per run with esbuild,
 * with the packages it can inline, into a few modules: ~0.5-0.9 s a start, hundreds of starts a run.
 * The bundle sits in a scratch directory beside links to package.json (for "type": "module" and
 * the version the site route reads) and to node_modules (for what stays outside the bundle).
 */
export interface CliBuild {
  /** The bundled src/main.ts (its chunks beside it). */
  entry: string;
  remove(): void;
}

/**
 * Loaded from node_modules as they are: native bindings, packages that read their own files at run
 * time (swagger-ui's pages, pino's transport workers), and the S3 client, which only a configured
 * bucket loads.
 */
const OUTSIDE_THE_BUNDLE = ['better-sqlite3', '@node-rs/argon2', 'pg-native', '@fastify/swagger-ui', 'pino', '@aws-sdk/*'];

export async function buildCli(root: string): Promise<CliBuild> {
  const out = mkdtempSync(join(tmpdir(), 'storefront-cli-build-'));
  const entry = join(out, 'src', 'main.js');
  try {
    symlinkSync(join(root, 'package.json'), join(out, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
    await build({
      entryPoints: [join(root, 'src', 'main.ts')],
      outdir: dirname(entry),
      bundle: true,
      // What a command imports when it runs (main.ts's `await import(...)`) stays a chunk of its own,
      // loaded by the commands that need it: `store list` starts in ~0.45 s, ~0.85 s from one file.
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: OUTSIDE_THE_BUNDLE,
      // The CommonJS packages inlined call require(); an ES module has none of its own.
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      // Names as in the sources (error classes report theirs), not renamed apart in one scope.
      keepNames: true,
      // Same module semantics as tsconfig.json (type-only imports are erased, class fields defined).
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
      logLevel: 'silent',
    });
  } catch (error) {
    rmSync(out, { recursive: true, force: true });
    throw error;
  }
  return { entry, remove: () => rmSync(out, { recursive: true, force: true }) };
}
