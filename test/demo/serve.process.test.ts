// `npm start -- --serve`, the sandbox for a real n8n or `zapier-platform invoke`, run here as its
// npm script runs it after the build (`sh -c "… && node --import tsx demo/start.ts --serve"`):
// a port another process holds names --port, killing the shell's parent chain stops it, and
// every link it prints answers while it runs.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { DEMO_API_KEY } from '@certificate-service/sandbox';
import { answers, freePort, rawRequest, withBusyPort } from '../support/net';
import { sigtermStops } from '../support/processes';
import { until } from '../support/until';

const ROOT = path.resolve(__dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const serve = (port: number) => `true && ${NODE} --import tsx demo/start.ts --serve --port ${port}`;

test('a busy port names --port', () =>
  withBusyPort((port) => {
    const run = spawnSync('sh', ['-c', serve(port)], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(`npm start -- --serve failed: 127.0.0.1:${port} is already in use (another sandbox?): choose another port with --port, e.g. npm start -- --serve --port ${port + 1}`);
  }), 60_000);

test('when the shell npm started it with is killed (npm passes a kill of its pid on to it), the sandbox stops', async () => {
  const port = await freePort();
  const shell = spawn('sh', ['-c', serve(port)], { cwd: ROOT, stdio: 'ignore' });
  await until(`the sandbox on ${port}`, () => answers(port), 50_000);
  await sigtermStops(shell.pid!, port);
}, 90_000);

test('it prints links to the sandbox it keeps running: the base URL, the page and the controls, and each answers', async () => {
  const port = await freePort();
  const shell = spawn('sh', ['-c', serve(port)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  shell.stdout!.on('data', (chunk) => (stdout += chunk));
  try {
    await until('the --serve report', () => stdout.includes('Press Ctrl+C to stop.'), 50_000);
    const links = stdout.match(/http:\/\/[^\s)]+/g) ?? [];
    expect(links).toEqual([`http://127.0.0.1:${port}/api/v1`, `http://127.0.0.1:${port}/`, `http://127.0.0.1:${port}/__sandbox`]);
    const page = await rawRequest(links[1], { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Certificate Service sandbox</h1>');
    expect((await rawRequest(links[2])).status).toBe(200);
    expect((await rawRequest(`${links[0]}/auth`, { method: 'POST', headers: { Authorization: `Bearer ${DEMO_API_KEY}` } })).status).toBe(200);
  } finally {
    await sigtermStops(shell.pid!, port);
  }
}, 90_000);
