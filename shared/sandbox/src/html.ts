// HTML for the sandbox's pages (the overview at `/`, the certificate viewer at `/v/…`). Every
// interpolated value is escaped unless it is already HTML built by `html`, so a page cannot
// forget to escape: a certificate's name, a variable's key, a receiver's answer are all text.

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

/** A whole page: its title, its own small stylesheet (inline: the sandbox serves no files) and body. */
export function htmlDocument(title: string, style: string, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${new Html(style)}</style></head>
<body>${body}</body></html>
`.text;
}
