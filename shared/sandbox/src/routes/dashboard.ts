// GET / in a browser (its Accept lists text/html): the overview page, rendered here from
// dashboard.ts, readable without a script. Like the viewer and the /__sandbox controls it needs
// no key, is not rate limited and is not counted: the sandbox is a local tool (its front door
// refuses other sites' pages and foreign Host names, server.ts). It never shows an API key or a
// signing secret. Every other client of `/` gets the JSON 404 it always got.
// `/`: the workspace's batches (newest first, with their counts), subscriptions and deliveries;
// `/?batch=<id>`: one batch and its certificates, paged.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Recipient } from '@certificate-service/sdk';
import { EMAIL_STATUSES } from '../choices';
import type { SandboxContext } from '../context';
import { type BatchPage, type BatchSummary, type Dashboard, type DashboardQuery, type DeliveryRow, type Overview, type Paged, parseDashboardQuery, readDashboard } from '../dashboard';
import { MAX_ATTEMPTS } from '../deliveries';
import { ApiError } from '../errors';
import { type Html, html, htmlDocument, sendPage } from '../html';
import type { DeliveryAttempt } from '../types';

/** True when the client lists text/html in Accept (a browser does; fetch, curl and the SDK do not). */
export function wantsHtml(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').split(',').some((range) => {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    return type === 'text/html' && !params.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}

/** `baseUrl`: the API's, shown so a developer can copy it (the key is not shown). */
export function handleDashboard(sb: SandboxContext, res: ServerResponse, query: URLSearchParams, baseUrl: string): void {
  let q: DashboardQuery;
  try {
    q = parseDashboardQuery(query);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const body = html`<main><h1>Bad request</h1><p>${err.message}</p><p><a href="/">Back to the overview</a></p></main>`;
    return sendPage(res, 400, htmlDocument('Sandbox: bad request', STYLE, body));
  }
  const d = readDashboard(sb, q);
  const ws = d.workspace;
  const title = d.kind === 'batch' && d.summary ? `Sandbox · ${d.summary.batch.title}` : ws ? `Sandbox · ${ws.username}` : 'Sandbox';
  const found = d.kind === 'batch' ? d.summary !== null : ws !== null || q.workspaceId === null;
  sendPage(res, found ? 200 : 404, htmlDocument(title, STYLE, html`${header(baseUrl, d)}${d.kind === 'batch' ? batchPage(q, d) : overview(q, d)}`));
}

function header(baseUrl: string, d: Dashboard): Html {
  const ws = d.workspace;
  return html`<header><h1>Certificate Service sandbox</h1>
<p>API base URL <code>${baseUrl}</code>${ws ? html` · quota ${count(ws.used)} of ${count(ws.quota)} used` : ''}</p>
${workspaceNav(d, ws?.id)}</header>`;
}

function overview(q: DashboardQuery, d: Overview): Html {
  const ws = d.workspace;
  if (!ws) {
    const why =
      q.workspaceId === null
        ? html`No workspace yet (the sandbox was started without its seed). <code>POST /__sandbox/workspaces</code> creates one.`
        : html`No workspace <code>${q.workspaceId}</code>.`;
    return html`<main><p class="empty">${why}</p></main>`;
  }
  const to = (param: 'page' | 'deliveriesPage', anchor: string) => (n: number) => `${link({ ws: q.workspaceId, page: q.page, deliveriesPage: q.deliveriesPage, [param]: n })}#${anchor}`;
  return html`<main>
<p class="toc"><a href="#batches">${plural(d.batches.rows, 'batch', 'batches')}</a> · ${plural(d.certificates, 'certificate')}
· <a href="#subscriptions">${plural(d.subscriptions.length, 'webhook subscription')}</a> · <a href="#deliveries">${plural(d.deliveries.rows, 'delivery', 'deliveries')}</a></p>
<h2 id="batches">Batches <small>newest first${pageOf(d.batches)}</small></h2>
${d.batches.rows === 0 ? html`<p class="empty">No batches yet.</p>` : batchesTable(d.batches.items)}
${pager(d.batches, to('page', 'batches'))}
<h2 id="subscriptions">Webhook subscriptions</h2>
${subscriptionsTable(d)}
<h2 id="deliveries">Recent deliveries <small>newest first, every attempt${pageOf(d.deliveries)}</small></h2>
${d.deliveries.rows === 0 ? html`<p class="empty">No deliveries yet.</p>` : deliveriesTable(d.deliveries.items)}
${pager(d.deliveries, to('deliveriesPage', 'deliveries'))}
</main>`;
}

function workspaceNav(d: Dashboard, current: string | undefined): Html {
  if (d.workspaces.length === 0) return html``;
  const links = d.workspaces.map((w) =>
    w.id === current
      ? html`<a aria-current="page" href="${link({ ws: w.id })}">${w.username}</a>`
      : html`<a href="${link({ ws: w.id })}">${w.username}</a>`,
  );
  return html`<nav class="workspaces">Workspace: ${links}</nav>`;
}

function batchesTable(rows: BatchSummary[]): Html {
  const body = rows.map(
    (s) => html`<tr><td><a href="${link({ batch: s.batch.id })}">${s.batch.title}</a><br><code>${s.batch.id}</code></td><td>${s.design?.name ?? s.batch.designId}</td>
<td><span class="status ${s.batch.status}">${s.batch.status}</span></td><td class="count">${count(s.certificates)}</td><td>${emailCounts(s)}</td><td>${when(s.batch.createdAt)}</td></tr>`,
  );
  return html`<table class="batches"><thead><tr><th>Batch</th><th>Design</th><th>Status</th><th class="count">Certificates</th><th>Emails</th><th>Created</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** "2 sent · 1 failed · 1 not sent": the email states a batch's certificates are in. */
function emailCounts(s: BatchSummary): Html {
  const parts = EMAIL_STATUSES.filter((status) => s.emails[status] > 0).map((status) => html`<span class="${status}-count">${count(s.emails[status])} ${status.replace('_', ' ')}</span>`);
  return parts.length === 0 ? html`<span class="empty">none</span>` : html`${parts.map((p, i) => html`${i > 0 ? ' · ' : ''}${p}`)}`;
}

function batchPage(q: DashboardQuery, d: BatchPage): Html {
  const s = d.summary;
  if (!s) return html`<main><p class="empty">No batch <code>${d.batchId}</code>${q.workspaceId === null ? '' : html` in workspace <code>${q.workspaceId}</code>`}.</p><p><a href="/">Back to the overview</a></p></main>`;
  const { batch } = s;
  const c = d.certificates;
  const shown = c.rows === 0 ? '' : c.pages === 1 ? `, ${plural(c.rows, 'certificate')}` : `, certificates ${count(c.from + 1)}–${count(c.from + c.items.length)} of ${count(c.rows)}`;
  const table = html`<table><thead><tr><th>Name</th><th>Email</th><th>Certificate</th><th>Variables</th><th>Email status</th><th>Issued</th></tr></thead>
<tbody>${c.items.map(certificateRow)}</tbody></table>`;
  const to = (n: number) => `${link({ batch: batch.id, page: n })}#certificates`;
  return html`<main>
<p class="toc"><a href="${link({ ws: batch.workspaceId })}">← All batches</a></p>
<section class="batch">
<h2>${batch.title} <span class="status ${batch.status}">${batch.status}</span></h2>
<p class="meta"><code>${batch.id}</code> · design ${s.design?.name ?? batch.designId} · created ${when(batch.createdAt)} · ${plural(s.certificates, 'certificate')}${s.certificates > 0 ? html`: ${emailCounts(s)}` : ''}</p>
<h3 id="certificates">Certificates <small>newest first${shown}${pageOf(c)}</small></h3>
${c.rows === 0 ? html`<p class="empty">No certificates yet.</p>` : table}
${pager(c, to)}
</section>
</main>`;
}

function certificateRow(r: Recipient): Html {
  return html`<tr><td>${r.name}</td><td>${r.email}</td><td><a href="${r.certUrl}"><code>${r.certificateId}</code></a></td>
<td>${variables(r.data)}</td><td><span class="status ${r.emailStatus}">${r.emailStatus.replace('_', ' ')}</span></td><td>${when(r.createdAt)}</td></tr>`;
}

function variables(data: Record<string, string>): Html {
  const entries = Object.entries(data);
  if (entries.length === 0) return html`<span class="empty">none</span>`;
  return html`<dl class="vars">${entries.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>`;
}

function subscriptionsTable(d: Overview): Html {
  if (d.subscriptions.length === 0) return html`<p class="empty">No webhook subscriptions.</p>`;
  const rows = d.subscriptions.map(
    (s) => html`<tr><td><code>${s.id}</code></td><td><code>${withoutPassword(s.url)}</code></td><td>${s.events.join(', ')}</td><td>${when(s.createdAt)}</td></tr>`,
  );
  return html`<table><thead><tr><th>ID</th><th>URL</th><th>Events</th><th>Created</th></tr></thead><tbody>${rows}</tbody></table>
<p class="meta">Signing secrets are not shown here: the API shows each one once, when the subscription is created or its secret rotated.</p>`;
}

function deliveriesTable(rows: DeliveryRow[]): Html {
  const body = rows.map((r) => {
    const progress = r.outcome === 'retrying' ? html` <small>(${r.attempts.length} of ${MAX_ATTEMPTS} attempts so far)</small>` : '';
    return html`<tr><td>${r.type}<br><code>${r.deliveryId}</code>${r.copy > 0 ? ` copy ${r.copy + 1}` : ''}</td>
<td>${r.certificate ? html`${r.certificate.name}<br><code>${r.certificate.certificateId}</code>` : html`<span class="empty">${r.test ? 'test delivery' : 'certificate deleted'}</span>`}</td>
<td><code>${withoutPassword(r.url)}</code></td><td><ol class="attempts">${r.attempts.map(attemptItem)}</ol></td>
<td><span class="status ${r.outcome}">${r.outcome}</span>${progress}</td></tr>`;
  });
  return html`<table><thead><tr><th>Event</th><th>Certificate</th><th>Sent to</th><th>Attempts</th><th>Outcome</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** The receiver's answer was cleaned of every secret the sandbox knows when it was logged (deliveries.ts). */
function attemptItem(a: DeliveryAttempt): Html {
  const answer = a.answer ? html` · <q>${a.answer.length > 60 ? `${a.answer.slice(0, 60)}…` : a.answer}</q>` : '';
  const result = a.status !== undefined ? html`<b>${a.status}</b>` : html`<b>${a.error}</b>`;
  return html`<li>${result} · ${when(a.at, true)} · ${a.durationMs} ms${answer}</li>`;
}

/** A receiver URL may carry a password (`https://user:pass@host/…`): the page shows `***` instead. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** "← Newer · page 2 of 15 · Older →", with the first and the last page a click away. */
function pager(p: Paged<unknown>, to: (page: number) => string): Html {
  if (p.pages === 1) return html``;
  const first = p.page > 2 ? html`<a href="${to(1)}">« Newest</a> · ` : '';
  const prev = p.page > 1 ? html`<a rel="prev" href="${to(p.page - 1)}">← Newer</a> · ` : '';
  const next = p.page < p.pages ? html` · <a rel="next" href="${to(p.page + 1)}">Older →</a>` : '';
  const last = p.page < p.pages - 1 ? html` · <a href="${to(p.pages)}">Oldest »</a>` : '';
  return html`<nav class="pager">${first}${prev}page ${p.page} of ${p.pages}${next}${last}</nav>`;
}

/** `/?ws=…&batch=…&page=…`, leaving out what is the default. */
function link(params: { ws?: string | null; batch?: string; page?: number; deliveriesPage?: number }): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== 1) search.set(key, String(value));
  }
  const s = search.toString();
  return s ? `/?${s}` : '/';
}

function pageOf(p: Paged<unknown>): string {
  return p.pages > 1 ? `, page ${p.page} of ${p.pages}` : '';
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/**
 * "28 Nov 2026, 14:03 UTC" (with seconds: "14:03:07 UTC"), the ISO value kept in `datetime`
 * and as the tooltip. Written out, not with Intl: ICU versions word months differently
 * (en-GB's "Sept" since ICU 72), and the page reads the same on every Node.
 */
export function when(iso: string, seconds = false): Html {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return html`${iso}`;
  const clock = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}${seconds ? `:${two(d.getUTCSeconds())}` : ''}`;
  return html`<time datetime="${iso}" title="${iso}">${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${clock} UTC</time>`;
}

const STYLE = `
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:14px 24px}
header h1{font-size:19px;margin:0 0 4px}
header p{margin:0 0 6px;color:#d0d7de}
header code{color:#fff}
nav.workspaces a{color:#9ecbff;margin-left:10px}
nav.workspaces a[aria-current]{color:#fff;font-weight:600;text-decoration:none;border-bottom:2px solid #fff}
main{padding:6px 24px 32px;max-width:1280px}
h2{font-size:16px;margin:24px 0 8px;padding-bottom:4px;border-bottom:1px solid #d0d7de}
h2 small,h3 small,.meta,.toc{color:#57606a;font-weight:normal}
h2 small,h3 small{font-size:13px;margin-left:6px}
h3{font-size:15px;margin:14px 0 6px}
.batch{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:12px 0;padding:10px 14px}
.batch h2{margin:0;padding:0;border:0}
.meta{margin:2px 0 6px;font-size:13px}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #eaeef2;vertical-align:top}
th{font-size:12px;color:#57606a}
th.count,td.count{text-align:right}
time{white-space:nowrap}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
a{color:#0969da}
.status{display:inline-block;padding:0 8px;border-radius:10px;font-size:12px;font-weight:600;background:#eaeef2;color:#57606a;white-space:nowrap}
.sent,.succeeded,.active{background:#dafbe1;color:#116329}
.queued,.retrying{background:#fff8c5;color:#7d4e00}
.failed{background:#ffebe9;color:#a40e26}
.sent-count{color:#116329}
.failed-count{color:#a40e26}
dl.vars{margin:0}
dl.vars dt{display:inline;color:#57606a}
dl.vars dt::after{content:":"}
dl.vars dd{display:inline;margin:0 10px 0 4px}
ol.attempts{margin:0;padding-left:18px;font-size:13px}
.empty{color:#57606a;font-style:italic}
.pager{margin:10px 0;font-weight:600}
`;
