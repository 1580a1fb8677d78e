import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable, Transform } from 'node:stream';
import { checkedKey, type ByteSpan, type FileStore, type StoredFile } from './file-store.js';

/** Where the S3-compatible store keeps files: any endpoint that speaks the S3 API (AWS, MinIO, Ceph, R2...). */
export interface S3StoreConfig {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Objects under this prefix (`downloads/`), so one bucket can hold other things too. */
  prefix: string;
  /** Path-style URLs (`<endpoint>/<bucket>/<key>`), which MinIO and most self-hosted servers need. */
  forcePathStyle: boolean;
}

/**
 * Files in an S3-compatible bucket. A put streams a multipart upload (the file is never held
 * whole in memory; the object appears only when the upload completes, so a reader never sees half
 * a file); a read asks the server for exactly the bytes of the range.
 */
export function s3FileStore(config: S3StoreConfig): FileStore {
  const client = new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
  });
  const Bucket = config.bucket;
  const keyOf = (key: string) => `${config.prefix}${checkedKey(key)}`;
  return {
    async put(key, content) {
      const Key = keyOf(key);
      let size = 0;
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      content.on('error', (error) => counted.destroy(error));
      await new Upload({ client, params: { Bucket, Key, Body: content.pipe(counted) }, queueSize: 2, partSize: 8 * 1024 * 1024 }).done();
      return { size };
    },
    async stat(key): Promise<StoredFile | undefined> {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }));
        return { size: Number(head.ContentLength ?? 0) };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    async createReadStream(key, span?: ByteSpan) {
      const range = span && (span.start !== undefined || span.end !== undefined) ? `bytes=${span.start ?? 0}-${span.end ?? ''}` : undefined;
      const object = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key), Range: range }));
      if (!(object.Body instanceof Readable)) throw new Error('the S3 client answered a body that is not a Node stream');
      return object.Body;
    },
    async open(key) {
      // One GET: its length and body are one version of the object, whatever is put over it meanwhile.
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }));
        if (!(object.Body instanceof Readable)) throw new Error('the S3 client answered a body that is not a Node stream');
        return { size: Number(object.ContentLength ?? 0), stream: object.Body };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    async delete(key) {
      // S3 answers a delete of a missing object with success, as the interface asks.
      await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },
  };
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.$metadata.httpStatusCode === 404 || error.name === 'NotFound' || error.name === 'NoSuchKey')
  );
}
