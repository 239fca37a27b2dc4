// Injected by esbuild (see build.mjs) in place of the global `setTimeout`.
//
// n8n's community-node rules forbid timer globals in shipped code. The bundled core has
// one only as the default of `RequesterOptions.sleep`, which the nodes always override with
// n8n-workflow's `sleep`; this stand-in keeps that fallback working without the global.
import { sleep } from 'n8n-workflow';

export function setTimeout(callback: () => void, ms?: number): void {
	void sleep(ms ?? 0).then(callback);
}
