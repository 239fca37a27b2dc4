// The public certificate viewer, GET /v/<shareToken>: no auth, no rate limit. The view
// itself (and its certificate.viewed event) is domain logic, in viewing.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Recipient } from '@certificate-service/sdk';
import type { SandboxContext } from '../context';
import { type HtmlDocument, html, htmlDocument, sendPage } from '../html';
import { designOf } from '../store';
import { recordView } from '../viewing';

/** The certificate's variables (e.g. the course), labelled as its design labels them; a key the design does not list keeps its name. */
function variableRows(sb: SandboxContext, r: Recipient): Array<[string, string]> {
  const batch = sb.store.batches.get(r.batchId);
  const ws = batch && sb.store.workspaces.get(batch.workspaceId);
  const labels = new Map((ws && batch ? (designOf(ws, batch)?.variables ?? []) : []).map((v) => [v.name, v.label]));
  return Object.entries(r.data).map(([name, value]) => [labels.get(name) ?? name, value]);
}

function page(r: Recipient, variables: Array<[string, string]>): HtmlDocument {
  const rows: Array<[string, string]> = [...variables, ['Certificate ID', r.certificateId], ['Issue date', r.issueDate], ['Expiry date', r.expiryDate ?? 'none']];
  const body = html`<main><h1>Certificate of completion</h1><p>Awarded to <strong>${r.name}</strong></p>
<table>${rows.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</table></main>`;
  return htmlDocument(`Certificate ${r.certificateId}`, STYLE, body);
}

const STYLE = `
body{margin:0;font:16px/1.5 Georgia,"Times New Roman",serif;color:#1f2328;background:#f6f8fa}
main{max-width:640px;margin:48px auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:32px 40px}
h1{margin-top:0;font-size:26px}
th{text-align:left;padding:4px 16px 4px 0;color:#57606a;font-weight:normal;vertical-align:top}
`;

export function handleViewer(sb: SandboxContext, req: IncomingMessage, res: ServerResponse, token: string): void {
  const forwarded = req.headers['x-forwarded-for'];
  const ip = (typeof forwarded === 'string' && forwarded.split(',')[0].trim()) || req.socket.remoteAddress || '';
  const recipient = recordView(sb, token, {
    userAgent: req.headers['user-agent'] ?? '',
    referer: req.headers.referer ?? '',
    ip,
  });
  if (!recipient) return sendPage(res, 404, htmlDocument('Certificate not found', STYLE, html`<main><h1>Certificate not found</h1></main>`));
  sendPage(res, 200, page(recipient, variableRows(sb, recipient)));
}
