// When a blog post or news item is public: active, and `now` inside its optional window (from
// inclusive, to exclusive). Drafts (inactive) and items outside their window are invisible to the
// public; an operator previews them (`?preview=1` with an operator API key), which skips the rule.
// The rule itself is infra/publishing.ts, shared with the content pages.

/** Who is reading: the public (the rule applies) or an operator's preview (everything shows). */
export type ReadMode = 'public' | 'preview';

export { isPublishedAt, publishedAt } from '../../infra/publishing.js';
