import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

// A local S3-compatible server (s3rver: the S3 REST API over HTTP, objects on disk) on loopback,
// with one empty bucket: the file store's S3 side is tested against the API, not a mock.

export interface S3Server {
  endpoint: string;
  bucket: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'storefront-files'): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'storefront-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    // s3rver accepts its own fixed credentials.
    env: {
      FILE_STORE_S3_ENDPOINT: endpoint,
      FILE_STORE_S3_BUCKET: bucket,
      FILE_STORE_S3_ACCESS_KEY: 'S3RVER',
      FILE_STORE_S3_SECRET_KEY: 'S3RVER',
      FILE_STORE_S3_PREFIX: 'downloads/',
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
