import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../../http/errors.js';

// An NDJSON body goes to a temporary file rather than memory: an import reads a file (the product
// feed twice), and a feed of tens of megabytes need not sit in the heap while it runs. Whoever has
// the file last removes it: the parser when the upload fails, the handler when it has used it
// (withNdjsonBody), the end of the request when no handler took it (a bad query string, a client
// gone before the handler began). A client that goes away while its import runs does not stop the
// import, and the file stays until the import is done with it.

export const NDJSON = 'application/x-ndjson';

interface Spooled {
  dir: string;
  /** `spooling` while the upload is read; `taken` once a handler uses it; `gone` once removed. */
  state: 'spooling' | 'ready' | 'taken' | 'gone';
}

const spooled = new WeakMap<FastifyRequest, Spooled>();

const bodyFile = (dir: string) => join(dir, 'body.ndjson');

export const tooLarge = (limit: number) => new HttpError(413, 'admin.bodyTooLarge', { limit });

/** Runs `work` on the spooled body of the request, and removes the file when it is done, whatever the outcome. */
export async function withNdjsonBody<T>(request: FastifyRequest, work: (file: string) => Promise<T>): Promise<T> {
  const body = spooled.get(request);
  if (body === undefined) throw new Error('no NDJSON body was read for this request');
  // Only when the client went away after the upload and before the handler began, and nothing ran.
  if (body.state !== 'ready') throw new HttpError(400, 'admin.requestAborted');
  body.state = 'taken';
  try {
    return await work(bodyFile(body.dir));
  } finally {
    await remove(body);
  }
}

async function remove(body: Spooled): Promise<void> {
  body.state = 'gone';
  await rm(body.dir, { recursive: true, force: true });
}

/** Registers the parser in the calling plugin only; other plugins keep their JSON-only parsers. */
export function acceptNdjsonBodies(app: FastifyInstance, limit: number): void {
  app.addContentTypeParser(NDJSON, async (request: FastifyRequest, payload: NodeJS.ReadableStream) => {
    const body: Spooled = { dir: await mkdtemp(join(tmpdir(), 'storefront-http-import-')), state: 'spooling' };
    spooled.set(request, body);
    // The request closes when its response was sent, or when the client went away; after a reply
    // to a client that went away there is no onResponse, so this is the hook that always comes.
    request.raw.once('close', () => {
      removeUntaken(request).catch((error: unknown) => request.log.warn({ err: error }, 'a spooled import body could not be removed'));
    });
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(bytes > limit ? tooLarge(limit) : null, chunk);
      },
    });
    try {
      // Opened before the copy, so a failed copy cannot create the file after its folder is removed.
      const file = await open(bodyFile(body.dir), 'wx');
      await pipeline(payload, counter, file.createWriteStream());
    } catch (error) {
      await remove(body);
      throw error;
    }
    body.state = 'ready';
    return bodyFile(body.dir);
  });
  app.addHook('onResponse', removeUntaken);
}

/** A body no handler took: the request ended before one did. */
async function removeUntaken(request: FastifyRequest): Promise<void> {
  const body = spooled.get(request);
  if (body?.state === 'ready') await remove(body);
}
