import sanitizeHtml from 'sanitize-html';

/**
 * Cleans operator-written HTML (content pages, blocks, blog posts, news) on the way into the
 * database, so what the front-end renders can carry no script: tags outside a text allowlist,
 * every `on*` handler, `style` (CSS can run expressions in old engines and hide phishing
 * overlays) and every URL scheme but http(s), mailto and tel are dropped. Relative URLs stay, so
 * pages can link inside the shop.
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'picture', 'source'],
  allowedAttributes: {
    a: ['href', 'name', 'target', 'rel', 'title'],
    img: ['src', 'srcset', 'alt', 'title', 'width', 'height', 'loading'],
    source: ['srcset', 'media', 'type'],
    '*': ['class', 'id', 'lang'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'], source: ['http', 'https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // A link that opens a new tab must not hand the shop's window to the page it opens.
  transformTags: {
    a: (tagName, attribs) =>
      attribs.target === '_blank' ? { tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } } : { tagName, attribs },
  },
};

export function sanitizeHtmlContent(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
