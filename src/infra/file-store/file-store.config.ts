import type { EnvReader } from '../env.js';

/** The `fileStore` section: where downloadable files are kept. */
export interface FileStoreConfig {
  /** FILE_STORE_DIR: the local folder of the disk store. */
  dir: string;
}

// The S3-compatible store needs a client library (@aws-sdk/client-s3 or minio) that this build does
// not ship. Setting its variables is refused rather than ignored, so nobody believes files go to a
// bucket while they go to the local disk.
const S3_VARIABLES = ['FILE_STORE_S3_ENDPOINT', 'FILE_STORE_S3_BUCKET', 'FILE_STORE_S3_ACCESS_KEY', 'FILE_STORE_S3_SECRET_KEY'];

export function readFileStoreConfig(env: EnvReader): FileStoreConfig {
  const s3 = S3_VARIABLES.filter((name) => env.optional(name) !== undefined);
  if (s3.length > 0) {
    env.problem(
      `${s3.join(', ')}: the S3-compatible file store is not available in this build (it needs @aws-sdk/client-s3); unset them to use FILE_STORE_DIR`,
    );
  }
  return { dir: env.read('FILE_STORE_DIR', './data/files') };
}
