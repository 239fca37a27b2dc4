// `npm start`: the main job on the embedded sandbox. Starts the local Certificate Service,
// runs the scripted flow through the shared core (and the connectors), prints a report, exits 0.
// `npm start -- --serve` keeps the sandbox running for a real n8n or `zapier-platform invoke`.
import { createSandbox, stopWithParent } from '@certificate-service/sandbox';
import { portFrom } from './args';
import { CORE_FLOW_TITLE, runCoreFlow } from './core-flow';
import { runN8nFlow } from './n8n-flow';
import { EMBEDDED_SANDBOX, NEXT_STEPS, SERVE_PORT } from './next-steps';
import { runZapierFlow } from './zapier-flow';

async function main() {
  const serve = process.argv.includes('--serve');
  const timeScale = 0.001;
  const port = portFrom(process.argv, serve ? SERVE_PORT : 0);
  const sandbox = await createSandbox({ port, timeScale }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    throw new Error(`127.0.0.1:${port} is already in use (another sandbox?): choose another port with --port, e.g. npm start -- --serve --port ${port + 1}`);
  });

  if (serve) {
    console.log(
      `Certificate Service sandbox listening.\n  Base URL: ${sandbox.baseUrl}\n  Demo API key: ${sandbox.apiKey}\n  Page: ${sandbox.url}/  (open it in a browser)\n  Controls: ${sandbox.url}/__sandbox\n` +
        `  Time runs scaled (timeScale ${timeScale}): delivery retries (1 min, 5 min, 30 min… in the spec) and the secret-rotation grace take ${timeScale}× their real time.\n` +
        'Press Ctrl+C to stop.',
    );
    stopWithParent(sandbox); // Ctrl+C, SIGTERM, or the shell npm started it with is gone
    return;
  }

  const report: string[] = [];
  const step = (label: string, detail: string) => report.push(`  ✓ ${label.padEnd(40)} ${detail}`);
  console.log(`${EMBEDDED_SANDBOX}\n`);
  try {
    const flows: Array<[string, typeof runCoreFlow]> = [
      [CORE_FLOW_TITLE, runCoreFlow],
      ['Zapier app (built, through zapier-platform-core\'s handler)', runZapierFlow],
      ['n8n nodes (built dist, in a minimal execution context)', runN8nFlow],
    ];
    for (const [title, flow] of flows) {
      console.log(`${title}:`);
      await flow(sandbox, step);
      console.log(`${report.splice(0).join('\n')}\n`);
    }
    const c = sandbox.controls.counters();
    console.log(`Sandbox counters: ${c.requests.total} requests, ${c.quotaUsed} quota units used, ${c.deliveries.succeeded}/${c.deliveries.attempted} deliveries succeeded.`);
    console.log('\nAll flows passed.');
    console.log(`\n${NEXT_STEPS}`);
  } finally {
    await sandbox.close();
  }
}

main().catch((error: unknown) => {
  console.error(`\n${process.argv.includes('--serve') ? 'npm start -- --serve' : 'Flow'} failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
