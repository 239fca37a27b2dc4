// P5: Zapier cold load. The built app, as Zapier gets it (zapier/build/build.zip, unzipped
// with the Zapier CLI's own unzip), against a minimal app on the same zapier-platform-core
// (an index.js whose custom auth test makes one z.request POST /auth), both next to the same
// node_modules. Each run is a fresh Node 22 child process (Zapier runs CLI apps on Node 22)
// that loads zapierwrapper.js and calls its handler for `authentication.test` against the
// sandbox: the Zapier engineer's test/zapier/support/run-handler.js, reused as is.
//
// Wall time of a child includes Node's own start-up, the same for both; it is measured on
// its own (`node -e ""`) and subtracted, so the ratio compares loading the app and running
// the test, not booting Node. Rounds interleave ours / minimal / bare Node; the ratio is the
// median of the per-round ratios.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSandbox } from '@certificate-service/sandbox';
import { ensureNode22 } from '../zapier/support/node22';
import { median, round, type Row } from './measure';

const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const APP_DIR = path.join(ROOT, 'zapier');
const ZIP = path.join(APP_DIR, 'build', 'build.zip');
const RUN_HANDLER = path.join(ROOT, 'test', 'zapier', 'support', 'run-handler.js');

// The same wrapper `zapier-platform build` writes into the zip (it loads the app lazily).
const MINIMAL_WRAPPER = `const path = require('path');
const zapier = require('zapier-platform-core');
const appPath = path.resolve(__dirname, 'index.js');
module.exports = { handler: zapier.createAppHandler(appPath) };
`;

const MINIMAL_APP = `// The least a Zapier app with custom auth can be: one z.request POST /auth.
const zapier = require('zapier-platform-core');
module.exports = {
  version: '1.0.0',
  platformVersion: zapier.version,
  authentication: {
    type: 'custom',
    fields: [{ key: 'apiKey', type: 'password', required: true }, { key: 'baseUrl', required: true }],
    test: async (z, bundle) => {
      const response = await z.request({
        url: bundle.authData.baseUrl + '/auth',
        method: 'POST',
        headers: { Authorization: 'Bearer ' + bundle.authData.apiKey },
      });
      return response.data;
    },
  },
  triggers: {},
  creates: {},
  searches: {},
};
`;

function dirSize(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += dirSize(p);
    else if (entry.isFile()) total += fs.statSync(p).size;
  }
  return total;
}

async function unzip(zip: string, into: string): Promise<void> {
  // The CLI's own unzip restores the symlinks the zip uses for the wrapper and entry point.
  const cliDir = path.dirname(require.resolve('zapier-platform-cli/package.json'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const decompress = require(path.join(cliDir, 'src', 'utils', 'decompress.js')) as (zip: string, dir: string) => Promise<unknown>;
  await decompress(zip, into);
}

/** Builds zapier/build/build.zip with the Zapier CLI, only when there is none (fresh clone). */
async function buildZip(): Promise<void> {
  const bin = path.join(ROOT, 'node_modules', '.bin');
  await exec(path.join(bin, 'zapier-platform'), ['build', '--skip-npm-install', '--skip-validation'], {
    cwd: APP_DIR,
    timeout: 180_000,
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, DISABLE_ZAPIER_ANALYTICS: '1', NO_UPDATE_NOTIFIER: '1' },
  });
}

interface ChildResult {
  ms: number;
  out: Array<{ ok: boolean; results?: unknown; name?: string; message?: string }>;
}

async function runChild(node: string, dir: string, events: unknown[]): Promise<ChildResult> {
  const start = process.hrtime.bigint();
  const { stdout } = await exec(node, [RUN_HANDLER, dir, JSON.stringify(events)], { timeout: 60_000, env: { ...process.env, NODE_ENV: 'production' } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const line = stdout.split('\n').find((l) => l.startsWith('__RESULTS__'));
  if (!line) throw new Error(`no results from the child process:\n${stdout}`);
  return { ms, out: (JSON.parse(line.slice('__RESULTS__'.length)) as { out: ChildResult['out'] }).out };
}

async function bareNode(node: string): Promise<number> {
  const start = process.hrtime.bigint();
  await exec(node, ['-e', ''], { timeout: 30_000 });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function runP5(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<Row[]> {
  const log = options.log ?? (() => {});
  const runs = options.quick ? 3 : 15;
  if (!fs.existsSync(ZIP)) {
    log('P5: zapier/build/build.zip is missing; building it with `zapier-platform build` …');
    await buildZip();
  }
  const zipStat = fs.statSync(ZIP);
  const distPath = path.join(APP_DIR, 'dist', 'index.js');

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-p5-'));
  const sb = await createSandbox({ rateLimit: false });
  try {
    // A private copy of the zip: the Zapier tests rebuild zapier/build in place.
    const zipCopy = path.join(work, 'build.zip');
    fs.copyFileSync(ZIP, zipCopy);
    const ours = path.join(work, 'ours');
    await unzip(zipCopy, ours);
    // Does the zip hold the app as built now? (Its bundle against zapier/dist/index.js.)
    const zipped = path.join(ours, 'zapier', 'dist', 'index.js');
    const stale = fs.existsSync(distPath) && fs.existsSync(zipped) && !fs.readFileSync(zipped).equals(fs.readFileSync(distPath));
    const minimal = path.join(work, 'minimal');
    fs.mkdirSync(minimal);
    // The same node_modules (same zapier-platform-core 19.1.0), copied, not linked.
    fs.cpSync(path.join(ours, 'node_modules'), path.join(minimal, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    fs.writeFileSync(path.join(minimal, 'zapierwrapper.js'), MINIMAL_WRAPPER);
    fs.writeFileSync(path.join(minimal, 'index.js'), MINIMAL_APP);
    fs.writeFileSync(path.join(minimal, 'package.json'), JSON.stringify({ name: 'minimal-zapier-app', version: '1.0.0', main: 'index.js', private: true }, null, 2));

    const node = await ensureNode22();
    const events = [{ command: 'execute', method: 'authentication.test', bundle: { authData: { apiKey: sb.apiKey, baseUrl: sb.baseUrl } } }];
    const expected = { workspaceId: 'ws_demo', username: 'Demo Workspace' };
    const check = (who: string, r: ChildResult) => {
      const first = r.out[0];
      if (!first?.ok || JSON.stringify(first.results) !== JSON.stringify(expected)) {
        throw new Error(`P5: ${who}'s authentication.test did not return the workspace: ${JSON.stringify(first)}`);
      }
    };
    // Warm the OS file cache once for each (a "cold" load here is a fresh process, not a cold disk).
    check('our app', await runChild(node, ours, events));
    check('the minimal app', await runChild(node, minimal, events));
    await bareNode(node);

    const t = { ours: [] as number[], minimal: [] as number[], boot: [] as number[] };
    for (let r = 0; r < runs; r++) {
      const order = r % 2 ? (['minimal', 'ours', 'boot'] as const) : (['ours', 'minimal', 'boot'] as const);
      for (const who of order) {
        if (who === 'boot') t.boot.push(await bareNode(node));
        else {
          const res = await runChild(node, who === 'ours' ? ours : minimal, events);
          check(who, res);
          t[who].push(res.ms);
        }
      }
    }
    // Decomposition: zapier-platform-core's own load, then our app's bundle on top of it.
    const split: Array<{ core: number; app: number }> = [];
    for (let r = 0; r < Math.min(runs, 5); r++) {
      const script = "const t0 = process.hrtime.bigint(); require('zapier-platform-core'); const t1 = process.hrtime.bigint(); require('./index.js'); const t2 = process.hrtime.bigint(); console.log(JSON.stringify({ core: Number(t1 - t0) / 1e6, app: Number(t2 - t1) / 1e6 }))";
      split.push(JSON.parse((await exec(node, ['-e', script], { cwd: ours, timeout: 30_000 })).stdout) as { core: number; app: number });
    }
    const m = { ours: median(t.ours), minimal: median(t.minimal), boot: median(t.boot) };
    const net = { ours: m.ours - m.boot, minimal: m.minimal - m.boot };
    // Each round ran ours, the minimal app and bare Node back to back: the median of the
    // per-round ratios cancels slow patches of a busy machine better than a ratio of medians.
    const ratio = median(t.ours.map((o, r) => (o - t.boot[r]) / (t.minimal[r] - t.boot[r])));
    const wallRatio = m.ours / m.minimal;
    const zipKB = round(zipStat.size / 1024, 1);
    log(`P5: ours ${round(m.ours)} ms, minimal ${round(m.minimal)} ms, bare node ${round(m.boot)} ms (medians of ${runs})`);
    const note = [
      ratio > 1.3 ? `Missed by ${round(ratio - 1.3)}×: loading our bundle (${round(net.ours - net.minimal)} ms more than the minimal app) is the difference; both load the same zapier-platform-core.` : '',
      stale ? 'The app bundle in build.zip differs from zapier/dist/index.js (the zip predates the latest build): rebuild it (`npm run zip -w zapier`) for current figures.' : '',
    ]
      .filter(Boolean)
      .join(' ');
    return [
      {
        id: 'P5',
        what: 'Zapier cold load: unzipped build.zip, fresh Node 22 process, authentication.test against the sandbox',
        ours: `${round(net.ours, 0)} ms (+ ${round(m.boot, 0)} ms Node start-up); zip ${zipKB} KB`,
        baseline: `${round(net.minimal, 0)} ms minimal app on the same zapier-platform-core`,
        ratio: round(ratio),
        target: '≤ 1.3× (Node start-up excluded)',
        met: ratio <= 1.3,
        ...(note ? { note } : {}),
        extra: {
          runs,
          node: (await exec(node, ['--version'])).stdout.trim(),
          medianWallMs: { ours: round(m.ours, 1), minimal: round(m.minimal, 1), bareNode: round(m.boot, 1) },
          medianNetMs: { ours: round(net.ours, 1), minimal: round(net.minimal, 1) },
          ratioOfMedians: round(net.ours / net.minimal, 3),
          medianRequireMs: { zapierPlatformCore: round(median(split.map((x) => x.core)), 1), ourAppOnTop: round(median(split.map((x) => x.app)), 1) },
          wallRatioIncludingNodeStartup: round(wallRatio, 3),
          zipBytes: zipStat.size,
          zipKB,
          unzippedBytes: dirSize(ours),
          zipBuiltAt: new Date(zipStat.mtimeMs).toISOString(),
          zipBundleDiffersFromDist: stale,
        },
      },
    ];
  } finally {
    await sb.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
