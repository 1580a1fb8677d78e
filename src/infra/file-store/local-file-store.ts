import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkedKey, FileStoreKeyError, type ByteSpan, type FileStore, type OpenedFile, type StoredFile } from './file-store.js';

/**
 * Files under one folder of the local disk (FILE_STORE_DIR). A put writes a temporary file beside
 * the target and renames it, so a reader never sees half a file and a failed upload leaves nothing.
 */
export function localFileStore(dir: string): FileStore {
  const root = resolve(dir);
  const pathOf = (key: string) => {
    const path = resolve(root, checkedKey(key));
    // checkedKey already refuses "..": this is the second lock on the same door.
    if (!path.startsWith(root + sep)) throw new FileStoreKeyError(key);
    return path;
  };
  const statOf = async (path: string): Promise<StoredFile | undefined> => {
    try {
      const info = await stat(path);
      return info.isFile() ? { size: info.size } : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  return {
    async put(key: string, content: Readable): Promise<StoredFile> {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${randomBytes(6).toString('hex')}.part`;
      // Opened before the copy starts: a write stream that opens its own file may create it after a
      // failed copy has already cleaned up, and leave a stray part file behind.
      const handle = await open(temporary, 'wx');
      try {
        await pipeline(content, handle.createWriteStream());
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      return (await statOf(path))!;
    },
    stat: async (key) => statOf(pathOf(key)),
    async createReadStream(key: string, span: ByteSpan = {}): Promise<Readable> {
      // Opened here, not by the stream once it is read: a file missing fails this call (the caller's
      // answer is still to be made), and one deleted or replaced after it still reads whole. A stat and
      // a stream opening the path later failed mid-answer (a 500 after the headers were chosen).
      const handle = await open(pathOf(key), 'r');
      try {
        if (!(await handle.stat()).isFile()) throw Object.assign(new Error(`no file under ${key}`), { code: 'ENOENT' });
      } catch (error) {
        await handle.close();
        throw error;
      }
      return handle.createReadStream({ start: span.start, end: span.end, highWaterMark: 256 * 1024 });
    },
    async open(key: string): Promise<OpenedFile | undefined> {
      const path = pathOf(key);
      let handle;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
        throw error;
      }
      // The open handle keeps the file it found: a put renames another over the path, a delete
      // unlinks it, and this one still reads whole.
      try {
        const info = await handle.stat();
        if (!info.isFile()) {
          await handle.close();
          return undefined;
        }
        return { size: info.size, stream: handle.createReadStream({ highWaterMark: 256 * 1024 }) };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
    async delete(key: string): Promise<void> {
      await rm(pathOf(key), { force: true });
    },
  };
}
