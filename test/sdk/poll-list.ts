// An in-memory recipient list for the polling tests that need a body the sandbox never sends
// (a broken page) or several batches: served newest first or oldest first with keyset
// cursors, filtered by emailStatus, with a Date header a second after the last issue, every
// request recorded.
import { CertificateServiceClient, type HttpRequest, type Transport } from '@certificate-service/sdk/core';
import { BASE, KEY, recipient } from './helpers';

export type Order = 'newest-first' | 'oldest-first';

export interface Row {
  seq: number;
  r: ReturnType<typeof recipient> & { batchId: string };
}

export function listServer(order: Order) {
  const rows: Row[] = [];
  const batches: string[] = ['batch_1'];
  const requests: HttpRequest[] = [];
  let seq = 0;
  let clock = Date.parse('2026-11-25T10:00:00.000Z');
  /** What the next answer is replaced with (a broken page), once. */
  let override: ((body: Record<string, unknown>) => unknown) | undefined;
  /** When set, a request with a cursor is refused with this 400 message. */
  let refusal: string | undefined;

  /** Issues `n` certificates; `tie` gives them all the same createdAt (one bulk call). */
  const issue = (n: number, opts: { tie?: boolean; batchId?: string; emailStatus?: string } = {}): string[] => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      if (!opts.tie || i === 0) clock += 1000;
      seq++;
      const r = { ...recipient(seq, { createdAt: new Date(clock).toISOString(), emailStatus: opts.emailStatus ?? 'not_sent' }), batchId: opts.batchId ?? 'batch_1' };
      rows.push({ seq, r });
      ids.push(r.id);
    }
    return ids;
  };
  const setStatus = (id: string, emailStatus: string) => {
    const row = rows.find((x) => x.r.id === id)!;
    row.r.emailStatus = emailStatus;
    (row.r as { emailSentAt: string | null }).emailSentAt = emailStatus === "sent" ? new Date(clock).toISOString() : null;
  };

  const transport: Transport = async (request) => {
    requests.push(request);
    const url = new URL(request.url);
    const headers = { 'content-type': 'application/json', date: new Date(clock + 1000).toUTCString() };
    const json = (body: unknown) => ({ status: 200, headers, body: JSON.stringify(body) });
    if (url.pathname.endsWith('/batches')) return json({ data: batches.map((id) => ({ id, title: id, designId: 'd', status: 'active' })), nextCursor: null });
    if (refusal !== undefined && url.searchParams.has('cursor')) {
      return { status: 400, headers, body: JSON.stringify({ error: 'VALIDATION_ERROR', message: refusal, detail: { field: 'cursor' } }) };
    }
    const batchId = decodeURIComponent(url.pathname.split('/')[4]);
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const status = url.searchParams.get('emailStatus');
    const after = url.searchParams.get('cursor');
    let list = rows.filter((x) => x.r.batchId === batchId && (status === null || x.r.emailStatus === status));
    if (order === 'newest-first') list = [...list].reverse();
    if (after !== null) {
      const s = Number(after.slice(2));
      list = list.filter((x) => (order === 'newest-first' ? x.seq < s : x.seq > s));
    }
    const page = list.slice(0, limit);
    const nextCursor = list.length > limit ? `s:${page[page.length - 1].seq}` : null;
    const body = { data: page.map((x) => x.r), nextCursor };
    if (override) {
      const o = override;
      override = undefined;
      const replaced = o(body);
      return typeof replaced === 'string' ? { status: 200, headers: { ...headers, 'content-type': 'text/html' }, body: replaced } : json(replaced);
    }
    return json(body);
  };

  const client = new CertificateServiceClient({ baseUrl: BASE, apiKey: KEY, transport, sleep: async () => {} });
  return {
    client,
    rows,
    batches,
    issue,
    setStatus,
    requests,
    /** Requests since the last call. */
    take: () => requests.splice(0).length,
    breakNext: (f: (body: Record<string, unknown>) => unknown) => (override = f),
    refuseCursors: (message: string) => (refusal = message),
  };
}
