// `certsvc` with a base URL where nothing answers, or an https:// URL at a plain-http server: the
// error names the address and its cause, with the hint. (The blackhole is a python child: a
// listener whose backlog is full never accepts, so a connect hangs until its timeout.)
import { spawn } from 'node:child_process';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { runCli } from '../support/cli';
import { freePort } from '../support/net';

jest.setTimeout(60_000);

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ timeScale: 0.001 });
}, 120_000);
afterAll(() => sb.close());

const certsvc = (args: string[], env: Record<string, string | undefined>) => runCli(args, { CERTSVC_BASE_URL: sb.baseUrl, ...env });

test('an https:// URL pointed at a plain-http server says so in words, and sends nothing', async () => {
  const ws = sb.controls.createWorkspace();
  const run = await certsvc(['auth'], { CERTSVC_API_KEY: ws.apiKey, CERTSVC_BASE_URL: sb.baseUrl.replace('http://', 'https://') });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^certsvc: POST \/auth could not connect to https:\/\/127\.0\.0\.1:\d+ \(.*\)\.\nNothing was sent\. The server did not answer in TLS \(HTTPS\): is it a plain http:\/\/ server, such as a local sandbox\?/);
});

describe('a base URL where nothing answers', () => {
  const auth = async (baseUrl: string) => {
    const ws = sb.controls.createWorkspace();
    const started = Date.now();
    const run = await certsvc(['auth'], { CERTSVC_API_KEY: ws.apiKey, CERTSVC_BASE_URL: baseUrl });
    return { ...run, ms: Date.now() - started };
  };

  test('a closed port: exit 1 within 3 s, naming the address, with a hint about the base URL and the sandbox', async () => {
    const port = await freePort(); // free now, so nothing listens there
    const run = await auth(`http://127.0.0.1:${port}/api/v1`);
    expect(run.code).toBe(1);
    expect(run.ms).toBeLessThan(3_000);
    expect(run.stderr).toMatch(new RegExp(`^certsvc: POST /auth could not connect to http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\)\\.\\n`));
    expect(run.stderr).toMatch(/Nothing was sent\. Check the base URL .* Check CERTSVC_BASE_URL \(or --base-url\); the local sandbox answers at http:\/\/127\.0\.0\.1:4010\/api\/v1 once started/);
  });

  test('an address that never answers (its connections are never accepted): exit 1 within 15 s, with the same hint', async () => {
    // A listener whose accept queue is full: the kernel drops further connection attempts, as a firewall would.
    const blackhole = spawn('python3', ['-c', "import socket,time\ns=socket.socket();s.bind(('127.0.0.1',0));s.listen(0)\np=s.getsockname()[1]\nf=[socket.socket() for _ in range(4)]\nfor c in f:\n c.setblocking(False)\n try: c.connect(('127.0.0.1',p))\n except BlockingIOError: pass\nprint(p,flush=True)\ntime.sleep(60)"]);
    try {
      const port = await new Promise<number>((resolve) => blackhole.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
      const run = await auth(`http://127.0.0.1:${port}/api/v1`);
      expect(run.code).toBe(1);
      expect(run.ms).toBeLessThan(15_000);
      expect(run.stderr).toMatch(/^certsvc: POST \/auth could not connect to http:\/\/127\.0\.0\.1:\d+ \(.*\)\.\nNothing was sent\. Check the base URL/);
    } finally {
      blackhole.kill();
    }
  });
});
