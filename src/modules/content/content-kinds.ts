import type { Static, TObject } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ImportKind } from '../../infra/import/index.js';
import { inLineTransaction, lineKind, lineParser } from '../catalogue-import/index.js';
import {
  BannerBody,
  BannerLine,
  BlockPageBody,
  BlockPageLine,
  ContentPageBody,
  ContentPageLine,
  MenuBody,
  MenuLine,
} from './content-input.schemas.js';
import type { CodedTable, Outcome } from './content-write.repository.js';
import { saveBanner, saveBlockPage, saveContentPage, saveMenu } from './content-write.service.js';

// The kinds of content operators write: one entry per kind, used by `import <kind>` /
// `POST /admin/import/<kind>` (a line with its code) and `PUT|DELETE /admin/content/<kind>/{code}`
// (the code in the path). Formats: docs/import.md.

export interface ContentKind<B extends TObject = TObject> {
  /** What a not-found message calls one. */
  noun: string;
  table: CodedTable;
  line: TObject;
  body: B;
  usage: string;
  save(trx: Kysely<Database>, code: string, input: Static<B>, now: number): Promise<Outcome>;
}

/** A line of the CLI usage: the command, then what it does from column 37. */
const usage = (command: string, text: string) => `${command.padEnd(35)} ${text}`;

const kind = <B extends TObject>(definition: ContentKind<B>): ContentKind<B> => definition;

export const CONTENT_KINDS = {
  'content-pages': kind({
    noun: 'content page',
    table: 'content_page',
    line: ContentPageLine,
    body: ContentPageBody,
    usage: usage('import content-pages <file.ndjson>', 'content pages (translated HTML, SEO texts)'),
    save: saveContentPage,
  }),
  'composite-pages': kind({
    noun: 'page',
    table: 'block_page',
    line: BlockPageLine,
    body: BlockPageBody,
    usage: usage('import composite-pages <file.ndjson>', 'composite, category, discount and main pages with their blocks'),
    save: saveBlockPage,
  }),
  banners: kind({
    noun: 'banner',
    table: 'banner',
    line: BannerLine,
    body: BannerBody,
    usage: usage('import banners <file.ndjson>', 'header, menu and block banners'),
    save: saveBanner,
  }),
  menus: kind({
    noun: 'menu',
    table: 'menu',
    line: MenuLine,
    body: MenuBody,
    usage: usage('import menus <file.ndjson>', 'mega menus (featured links)'),
    save: saveMenu,
  }),
};

export type ContentKindName = keyof typeof CONTENT_KINDS;

function importKind(definition: ContentKind): ImportKind {
  return lineKind(definition.usage, ({ db, clock, log }) => ({
    parse: lineParser(definition.line, (line) => line as Static<typeof definition.line> & { code: string }),
    apply: (line: { code: string } & Record<string, unknown>) => {
      const { code, ...input } = line;
      return inLineTransaction(db, log, (trx) => definition.save(trx, code, input, clock.now()));
    },
  }));
}

/** The content import kinds, for src/import-kinds.ts. */
export const contentImportKinds: Record<string, ImportKind> = Object.fromEntries(
  Object.entries(CONTENT_KINDS).map(([name, definition]) => [name, importKind(definition as unknown as ContentKind)]),
);
