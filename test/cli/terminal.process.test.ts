// `certsvc issue` on a real terminal: the built CLI under `script` (util-linux; Debian's essential
// bsdutils), which gives it a pseudo-terminal, so stderr is a TTY as in a shell. A process test:
// `npm test` runs it, `npm run test:unit` leaves it out (*.process.test.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSandbox } from '@certificate-service/sandbox';
import { CLI, ensureBuilt } from '../support/built';

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-tty-'));
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const lastLine = (text: string) => JSON.parse(text.trim().split('\n').pop()!);
const writeCsv = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};
const rows = (n: number) => Array.from({ length: n }, (_, i) => `Learner ${i},learner${i}@example.com`);

describe('on a terminal', () => {
  test('a progress bar on stderr, waiting out the rate limit visibly; stdout still ends with the summary', async () => {
    const limited = await createSandbox({ rateLimit: { limit: 2, windowMs: 3_000 } });
    try {
      const { apiKey } = limited.controls.createWorkspace();
      const batch = await fetch(`${limited.baseUrl}/batches`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'TTY', designId: 'design_classic' }),
      }).then((r) => r.json() as Promise<{ id: string }>);
      const csv = writeCsv('tty.csv', ['name,email', ...rows(250)].join('\n'));
      const command = [process.execPath, CLI, 'issue', '--batch', batch.id, '--csv', csv].map((a) => `'${a}'`).join(' ');
      const out = await new Promise<string>((resolve) => {
        let text = '';
        const child = spawn('script', ['-qec', command, '/dev/null'], { env: { PATH: process.env.PATH, CERTSVC_API_KEY: apiKey, CERTSVC_BASE_URL: limited.baseUrl, COLUMNS: '100' } });
        child.stdout.on('data', (c) => (text += c));
        child.on('close', () => resolve(text));
      });
      expect(out).toMatch(/\r\[#{0,24}\.*\] 0\/250/);
      expect(out).toMatch(/\] 100\/250/);
      expect(out).toMatch(/\] 0\/250 · rate limit: waiting \d s/);
      expect(out).toMatch(/\] 200\/250 · rate limit: waiting \d s/);
      expect(out).toMatch(/\[#{24}\] 250\/250/);
      expect(lastLine(out.replace(/\r/g, ''))).toEqual({ issued: 250, skipped: 0, failed: 0, invalid: 0, requests: 6, unknown: 0, notSent: 0 });
      expect(out).not.toContain(apiKey);
    } finally {
      await limited.close();
    }
  }, 60_000);
});
