import { Type, type TString } from '@sinclair/typebox';
import { URL_CHARACTER } from './text.js';

// Where a link an operator stores sends the shopper: a banner's or a block's link, a menu link, a
// redirect's target. Either a path of the shop's front-end, which starts with one `/`, or an
// absolute http(s) URL. `//host/path` and `/\host/path` are not paths: a browser reads both as a
// URL of another host (it takes `\` for `/`), so a front-end that sends the shopper to a "path"
// would send them off the shop (an open redirect). No `javascript:`, `data:` and the like either.
// The pattern is plain ECMA-262 like text.ts's, so clients and /docs read it as Ajv does.

export const LINK_TARGET_PATTERN = `^(https?://${URL_CHARACTER}+|/(?![/\\\\])${URL_CHARACTER}*)$`;
const LINK_TARGET = new RegExp(LINK_TARGET_PATTERN);

/** The schema of a stored link target (a pattern failure is the usual 422 on its field). */
export const LinkTarget = (options: { minLength?: number; maxLength: number }): TString =>
  Type.String({ ...options, pattern: LINK_TARGET_PATTERN, description: 'a path of the shop starting with a single / or an http(s) URL' });

/** Whether `value` is a link target as LinkTarget takes it: for rows stored before the rule held. */
export const isLinkTarget = (value: string): boolean => LINK_TARGET.test(value);

/** A stored link as it may be shown: none where it was stored before the rule held and breaks it. */
export const shownLinkTarget = (value: string | null | undefined): string | null =>
  value !== null && value !== undefined && isLinkTarget(value) ? value : null;
