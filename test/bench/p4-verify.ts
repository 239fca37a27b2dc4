// P4: cost of verifying a delivery on a 2 KB body, against a bare createHmac of the same bytes.
import { createHmac } from 'crypto';
import { checkSignature, signPayload, verifyDelivery } from '../../shared/src';
import { microsPerCall, round, type Row } from './measure';

export function bodyOf(bytes: number): string {
  const data: Record<string, string> = {};
  const event = { id: 'whe_bench', type: 'certificate.issued', createdAt: new Date().toISOString(), data: { id: 'rec_1', batchId: 'batch_1', name: 'Ada Lovelace', email: 'ada@example.com', certificateId: 'CERT-2026-000001-0001', shareToken: 'tok', certUrl: 'https://x.test/v/tok', issueDate: new Date().toISOString(), expiryDate: null, data, emailStatus: 'sent', emailSentAt: null, createdAt: new Date().toISOString() } };
  for (let i = 0; JSON.stringify(event).length < bytes; i++) data[`field${i}`] = `value ${i} `.repeat(3);
  return JSON.stringify(event);
}

export function runP4(): Row[] {
  const body = bodyOf(2048);
  const secret = 'wh_sec_bench_secret';
  const t = Math.floor(Date.now() / 1000);
  const headers = { 'X-Service-Delivery': 'whd_1', ...signPayload(secret, body, t) };
  const bare = microsPerCall(() => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  const check = microsPerCall(() => checkSignature(body, headers, [secret]));
  const full = microsPerCall(() => verifyDelivery(body, headers, [secret]));
  const bareAndParse = microsPerCall(() => {
    createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    return JSON.parse(body);
  });
  return [
    { id: 'P4a', what: `signature check (checkSignature), ${body.length} B body`, ours: `${round(check)} µs`, baseline: `${round(bare)} µs bare createHmac`, ratio: round(check / bare), target: '≤ 1.5×', met: check / bare <= 1.5 },
    { id: 'P4b', what: 'verifyDelivery (check + parse), vs bare createHmac', ours: `${round(full)} µs`, baseline: `${round(bare)} µs bare createHmac`, ratio: round(full / bare), target: '≤ 1.5×', met: full / bare <= 1.5 },
    { id: 'P4c', what: 'verifyDelivery, vs bare createHmac + JSON.parse', ours: `${round(full)} µs`, baseline: `${round(bareAndParse)} µs`, ratio: round(full / bareAndParse), target: '≤ 1.5×', met: full / bareAndParse <= 1.5 },
  ];
}
