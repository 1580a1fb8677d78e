import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageInfo {
  name: string;
  version: string;
}

/**
 * The service's own package.json, found by walking up from this module: the module sits at a
 * different depth under src/ (tsx), dist/ (the build) and a bundle (the tests' CLI build), and
 * the package file is the nearest one above it in all three.
 */
export function readPackageInfo(): PackageInfo {
  const from = fileURLToPath(import.meta.url);
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const { name, version } = JSON.parse(readFileSync(file, 'utf8')) as PackageInfo;
      return { name, version };
    }
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
