// Text put into the HTML this service writes (mails, the test gateway's pages): the five characters
// that could end an element or an attribute value are written as entities.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A URL inside an escaped paragraph made a link to itself (escaped the same way in the text and in the href); none: as it was. */
export function linkUrl(escaped: string, url: string | null): string {
  if (url === null) return escaped;
  const href = escapeHtml(url);
  return escaped.replace(href, `<a href="${href}">${href}</a>`);
}
