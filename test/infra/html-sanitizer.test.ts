import { describe, expect, it } from 'vitest';
import { sanitizeHtmlContent } from '../../src/infra/html-sanitizer.js';

// The usual XSS payloads (OWASP's filter evasion cheat sheet): none may leave anything that runs.
const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<a href="&#106;avascript:alert(1)">x</a>',
  '<a href="  javascript:alert(1)">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<iframe src="https://evil.example"></iframe>',
  '<body onload=alert(1)>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<p onclick="alert(1)">x</p>',
  '<object data="javascript:alert(1)"></object>',
  '<form action="javascript:alert(1)"><input type=submit></form>',
  '<img src="javascript:alert(1)">',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<a href="//evil.example">x</a>',
];

describe('sanitizeHtmlContent', () => {
  it.each(PAYLOADS)('leaves nothing that runs of %s', (payload) => {
    const clean = sanitizeHtmlContent(payload).toLowerCase();
    expect(clean).not.toMatch(/<script|<iframe|<object|<form|<svg|<style|javascript:|data:|\bon[a-z]+=|style=|\/\/evil/);
  });

  it('keeps ordinary rich text, images and links inside and outside the shop', () => {
    const html =
      '<h2 class="lead">Sale</h2><p>Read <a href="/books/1">this</a> or <a href="https://x.example" target="_blank">that</a>.</p>' +
      '<img src="https://cdn.example/a.jpg" alt="A">';
    expect(sanitizeHtmlContent(html)).toBe(
      '<h2 class="lead">Sale</h2><p>Read <a href="/books/1">this</a> or ' +
        '<a href="https://x.example" target="_blank" rel="noopener noreferrer">that</a>.</p>' +
        '<img src="https://cdn.example/a.jpg" alt="A" />',
    );
  });
});
