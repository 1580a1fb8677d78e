import type { Readable } from 'node:stream';

// Where the files the shop hands out (bought e-books and audiobooks) are kept. One interface, so the
// download routes do not know whether the bytes sit on the local disk or in an S3-compatible bucket.

export interface StoredFile {
  size: number;
}

/** A file opened for reading whole: its size and bytes are one version's, whatever replaces or removes it meanwhile. */
export interface OpenedFile {
  size: number;
  stream: Readable;
}

/** Inclusive byte offsets, as in an HTTP Range; both optional (the whole file). */
export interface ByteSpan {
  start?: number;
  end?: number;
}

export interface FileStore {
  /** Writes the stream under `key` (replacing what was there) and answers its size once it is complete. */
  put(key: string, content: Readable): Promise<StoredFile>;
  /** The file's size, or undefined when there is none under `key`. */
  stat(key: string): Promise<StoredFile | undefined>;
  /** The bytes from `start` to `end` (inclusive), read as they are sent: never the whole file in memory. */
  createReadStream(key: string, span?: ByteSpan): Promise<Readable>;
  /**
   * The whole file, opened once (undefined when there is none): a stat followed by a read could
   * answer the size of one version and the bytes of the next, or fail, when a writer replaces or
   * removes it in between. The caller reads or destroys the stream.
   */
  open(key: string): Promise<OpenedFile | undefined>;
  /** Removes the file; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
}

/** A key the store refuses: empty, absolute, with `..`, a backslash or a control character. */
export class FileStoreKeyError extends Error {
  constructor(key: string) {
    super(`file store keys are relative paths of [A-Za-z0-9._-] segments without "..": ${JSON.stringify(key.slice(0, 100))}`);
    this.name = 'FileStoreKeyError';
  }
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/**
 * Checks a key before any store touches it: `/`-separated segments of letters, digits, `.`, `_`
 * and `-`, none starting with a dot (so no `..`, no hidden files), at most 500 characters. A key can
 * then never name a path outside the store's folder nor an odd object name in a bucket.
 */
export function checkedKey(key: string): string {
  const segments = key.split('/');
  if (key.length === 0 || key.length > 500 || !segments.every((segment) => SEGMENT.test(segment))) throw new FileStoreKeyError(key);
  return key;
}

/** Whether the store would take `key` (for answering a 4xx before any work). */
export function isStoreKey(key: string): boolean {
  try {
    checkedKey(key);
    return true;
  } catch {
    return false;
  }
}
