import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { transform } from 'esbuild';

/**
 * The CLI tests run `storefront <command>` as a real process. Under `node --import tsx` every one
 * of those processes spent ~5 s of its ~6 s in the loader hooks (Node 20 runs them on another
 * thread, one round trip per module); the same sources compiled ahead load in ~1.3 s. So the
 * global setup transpiles src/ once per run, file by file with esbuild (what tsx itself runs on
 * each file, no bundling), into a scratch directory laid out like the checkout: `src/` beside a
 * link to package.json (for "type": "module" and the version the site route reads) and to
 * node_modules.
 */
export interface CliBuild {
  /** The compiled src/main.ts. */
  entry: string;
  remove(): void;
}

export async function buildCli(root: string): Promise<CliBuild> {
  const out = mkdtempSync(join(tmpdir(), 'storefront-cli-build-'));
  try {
    symlinkSync(join(root, 'package.json'), join(out, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
    const src = join(root, 'src');
    await Promise.all(sourceFiles(src).map((file) => compile(file, join(out, 'src', relative(src, file)))));
  } catch (error) {
    rmSync(out, { recursive: true, force: true });
    throw error;
  }
  return { entry: join(out, 'src', 'main.js'), remove: () => rmSync(out, { recursive: true, force: true }) };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.isFile() ? [path] : [];
  });
}

async function compile(file: string, target: string): Promise<void> {
  mkdirSync(dirname(target), { recursive: true });
  if (!file.endsWith('.ts') || file.endsWith('.d.ts')) {
    // Anything else in src/ (JSON, text) is read at run time next to the code: copy it as is.
    if (!file.endsWith('.d.ts')) writeFileSync(target, readFileSync(file));
    return;
  }
  const { code } = await transform(readFileSync(file, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: file,
    // Same module semantics as tsconfig.json (type-only imports are erased, class fields defined).
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
  });
  writeFileSync(target.replace(/\.ts$/, '.js'), code);
}
