// HTML for the sandbox's pages (the overview at `/`, the certificate viewer at `/v/…`). Every
// interpolated value is escaped unless it is already HTML built by `html`, so a page cannot
// forget to escape: a certificate's name, a variable's key, a receiver's answer are all text.
// Each page is sent with a Content-Security-Policy that allows its own stylesheet and nothing
// else (no script, no image, no frame around it), so even a value that escaped would not run.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type Headers, sendHtml } from './http-io';

/** A fragment of HTML built by `html`; interpolating it does not escape it again. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** `html\`<td>${value}</td>\``: strings and numbers are escaped, arrays joined, null/undefined/false left out. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((value, i) => (out += fragment(value) + strings[i + 1]));
  return new Html(out);
}

function fragment(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(fragment).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Safe in element content and in quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A page and the headers it must be sent with. */
export interface HtmlDocument {
  html: string;
  headers: Headers;
}

/**
 * A whole page: its title, its own small stylesheet (inline: the sandbox serves no files) and
 * body. The pages need no script (they are links and tables), so the policy allows none; the
 * stylesheet is allowed by its hash, not by 'unsafe-inline'.
 */
export function htmlDocument(title: string, style: string, body: Html): HtmlDocument {
  const styleHash = createHash('sha256').update(style, 'utf8').digest('base64');
  return {
    html: html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${new Html(style)}</style></head>
<body>${body}</body></html>
`.text,
    headers: {
      'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${styleHash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      // Older browsers that do not read frame-ancestors.
      'X-Frame-Options': 'DENY',
      // A link within the sandbox keeps its Referer (the viewer records it); none leaves it.
      'Referrer-Policy': 'same-origin',
    },
  };
}

export function sendPage(res: ServerResponse, status: number, doc: HtmlDocument): void {
  sendHtml(res, status, doc.html, doc.headers);
}
