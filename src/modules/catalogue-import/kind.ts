import { importNdjson, type ImportDeps, type ImportKind, type ImportOptions, type LineImporter } from '../../infra/import/index.js';

/** An import kind whose lines go through importNdjson: the common case. */
export function lineKind<R>(usage: string, importer: (deps: ImportDeps, options: ImportOptions) => LineImporter<R>): ImportKind {
  return {
    usage,
    create: (deps, options) => (file, report, progress) => importNdjson(file, importer(deps, options), report, deps.log, progress),
  };
}
