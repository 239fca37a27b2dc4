// The public certificate viewer, GET /v/<shareToken>: no auth, no rate limit. The view
// itself (and its certificate.viewed event) is domain logic, in viewing.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Recipient } from '@certificate-service/sdk';
import type { SandboxContext } from '../context';
import { escapeHtml, sendHtml } from '../http-io';
import { recordView } from '../viewing';

function page(r: Recipient): string {
  const row = (k: string, v: string) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Certificate ${escapeHtml(r.certificateId)}</title></head>
<body><h1>Certificate of completion</h1><p>Awarded to <strong>${escapeHtml(r.name)}</strong></p>
<table>${row('Certificate ID', r.certificateId)}${row('Issue date', r.issueDate)}${row('Expiry date', r.expiryDate ?? 'none')}</table>
</body></html>`;
}

export function handleViewer(sb: SandboxContext, req: IncomingMessage, res: ServerResponse, token: string): void {
  const forwarded = req.headers['x-forwarded-for'];
  const ip = (typeof forwarded === 'string' && forwarded.split(',')[0].trim()) || req.socket.remoteAddress || '';
  const recipient = recordView(sb, token, {
    userAgent: req.headers['user-agent'] ?? '',
    referer: req.headers.referer ?? '',
    ip,
  });
  if (!recipient) {
    sendHtml(res, 404, '<!doctype html><html><body><h1>Certificate not found</h1></body></html>');
    return;
  }
  sendHtml(res, 200, page(recipient));
}
