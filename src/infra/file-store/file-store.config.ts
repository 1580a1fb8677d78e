import { isHttpUrl, type EnvReader } from '../env.js';
import type { S3StoreConfig } from './s3-file-store.js';

/** The `fileStore` section: where downloadable files are kept. */
export interface FileStoreConfig {
  /** FILE_STORE_DIR: the local folder of the disk store. */
  dir: string;
  /** The S3-compatible bucket, when FILE_STORE_S3_BUCKET is set; then the local folder is not used. */
  s3: S3StoreConfig | undefined;
}

const S3_REQUIRED = ['FILE_STORE_S3_ENDPOINT', 'FILE_STORE_S3_BUCKET', 'FILE_STORE_S3_ACCESS_KEY', 'FILE_STORE_S3_SECRET_KEY'] as const;

export function readFileStoreConfig(env: EnvReader): FileStoreConfig {
  const dir = env.read('FILE_STORE_DIR', './data/files');
  const given = S3_REQUIRED.filter((name) => env.optional(name) !== undefined);
  if (given.length === 0) return { dir, s3: undefined };
  // Some of them only: refused, so nobody believes files go to a bucket while they go to the disk.
  const missing = S3_REQUIRED.filter((name) => !given.includes(name));
  if (missing.length > 0)
    env.problem(`${missing.join(', ')} must be set too: the S3-compatible file store needs all of ${S3_REQUIRED.join(', ')}`);
  const endpoint = env.read('FILE_STORE_S3_ENDPOINT', '');
  if (endpoint !== '' && !isHttpUrl(endpoint)) env.problem(`FILE_STORE_S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  const prefix = env.read('FILE_STORE_S3_PREFIX', '');
  if (prefix !== '' && !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/$/.test(prefix))
    env.problem(`FILE_STORE_S3_PREFIX must be path segments ending in "/", e.g. downloads/, got "${prefix}"`);
  return {
    dir,
    s3: {
      endpoint,
      region: env.read('FILE_STORE_S3_REGION', 'us-east-1'),
      bucket: env.read('FILE_STORE_S3_BUCKET', ''),
      accessKeyId: env.read('FILE_STORE_S3_ACCESS_KEY', ''),
      secretAccessKey: env.read('FILE_STORE_S3_SECRET_KEY', ''),
      prefix,
      forcePathStyle: env.oneOf('FILE_STORE_S3_PATH_STYLE', 'true', ['true', 'false'] as const) === 'true',
    },
  };
}
