// stdio, both eras: the first message decides. One with the 2026-07-28 `_meta` envelope
// (server/discover or a call) is served by the 2.x SDK's serveStdio (modern.ts); anything else
// (initialize) by the 2025 server as before. The rule is isLegacyRequest's: no envelope claim,
// legacy. The transport is the same stdio pipe, its first message handed to whichever takes it.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createModernServer } from './modern';
import { toolRunner, type CertificateMcpServer, type ServerOptions } from './server';

export interface RunningStdio {
  /** The protocol era the client opened with, once it has. */
  era(): 'legacy' | 'modern' | undefined;
  close(): Promise<void>;
  idle(): Promise<void>;
}

export function isModernMessage(message: JSONRPCMessage): boolean {
  const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  return typeof meta?.['io.modelcontextprotocol/protocolVersion'] === 'string';
}

/** `legacy` is the 2025 server (createServer(options)), made by the caller before anything listens. */
export async function serveBothStdio(legacy: CertificateMcpServer, options: ServerOptions, stdin: Readable, stdout: Writable): Promise<RunningStdio> {
  const pipe = new StdioServerTransport(stdin, stdout);
  const runner = toolRunner(options);
  let era: 'legacy' | 'modern' | undefined;
  let stop: () => Promise<void> = () => pipe.close();
  // Messages before the taker has started: kept in order, then handed over.
  const pending: JSONRPCMessage[] = [];
  const taker: Transport = {
    start: async () => {
      pipe.onmessage = (m) => taker.onmessage?.(m);
      queueMicrotask(() => pending.splice(0).forEach((m) => taker.onmessage?.(m)));
    },
    send: (message: JSONRPCMessage) => pipe.send(message),
    close: () => pipe.close(),
  };
  pipe.onclose = () => taker.onclose?.();
  pipe.onerror = (error) => taker.onerror?.(error);
  pipe.onmessage = (message) => {
    pending.push(message);
    if (era) return;
    era = isModernMessage(message) ? 'modern' : 'legacy';
    if (era === 'legacy') {
      void legacy.server.connect(taker);
      stop = () => legacy.server.close();
    } else {
      const handle = serveStdio(() => createModernServer(options, runner), { legacy: 'reject', transport: taker, onerror: (error) => options.log?.warn(`stdio (2026-07-28): ${error.message}`) });
      stop = () => handle.close();
    }
  };
  await pipe.start();
  return {
    era: () => era,
    close: () => stop(),
    idle: async () => {
      await legacy.idle();
      await runner.idle();
    },
  };
}
