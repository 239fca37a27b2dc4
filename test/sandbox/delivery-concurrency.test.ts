// deliveryConcurrency: a capped sender keeps at most N attempts in flight per subscription
// (the others wait, unsigned, for a slot); uncapped (the default) sends every delivery at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';

/** A receiver that answers 200 after `holdMs` and records the most requests it held at once. */
async function slowReceiver(holdMs: number) {
  let open = 0;
  let most = 0;
  let total = 0;
  const server = http.createServer((req, res) => {
    open++;
    total++;
    most = Math.max(most, open);
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        open--;
        res.end('ok');
      }, holdMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    stats: () => ({ most, total }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function flood(sb: Sandbox, n: number, holdMs: number) {
  const ws = sb.controls.createWorkspace();
  const api = new Api(sb.baseUrl, ws.apiKey);
  const rx = await slowReceiver(holdMs);
  try {
    expect((await api.post('/webhooks/subscriptions', { url: rx.url, events: ['certificate.issued'] })).status).toBe(201);
    const batchId = (await api.post('/batches', { title: 'C', designId: 'design_classic' })).body.id;
    const recipients = Array.from({ length: n }, (_, i) => ({ name: `P ${i}`, email: `p${i}@example.com` }));
    expect((await api.post(`/batches/${batchId}/recipients/bulk`, { recipients })).status).toBe(201);
    await sb.controls.waitForDeliveries((log) => log.filter((d) => d.outcome === 'succeeded').length >= n, 10_000);
    return rx.stats();
  } finally {
    await rx.close();
  }
}

describe('deliveryConcurrency', () => {
  it('uncapped (default): a bulk issue reaches the receiver all at once', async () => {
    const sb = await createSandbox({ rateLimit: false, mailDelayMs: 5 });
    try {
      expect(sb.options.deliveryConcurrency).toBe(Infinity);
      expect(await flood(sb, 12, 150)).toEqual({ most: 12, total: 12 });
    } finally {
      await sb.close();
    }
  });

  it('capped at 3: never more than 3 in flight per subscription, every delivery still sent once', async () => {
    const sb = await createSandbox({ rateLimit: false, mailDelayMs: 5, deliveryConcurrency: 3 });
    try {
      expect(await flood(sb, 12, 100)).toEqual({ most: 3, total: 12 });
      expect(sb.controls.counters().deliveries).toMatchObject({ attempted: 12, succeeded: 12, failed: 0 });
    } finally {
      await sb.close();
    }
  });

  it('refuses a cap that is not a whole number >= 1', async () => {
    await expect(createSandbox({ deliveryConcurrency: 0 })).rejects.toThrow(/deliveryConcurrency/);
    await expect(createSandbox({ deliveryConcurrency: 1.5 })).rejects.toThrow(/deliveryConcurrency/);
  });
});
