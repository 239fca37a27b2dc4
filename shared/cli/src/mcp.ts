// `certsvc mcp`: runs the MCP server, which lives in its own package (@certificate-service/mcp,
// with the MCP SDK and its dependencies), so installing the CLI stays light.
import { UsageError } from '@certificate-service/sdk';
import type { ConnectionFlags } from './connect';
import type { Run } from './command';
import type { Io } from './io';

/** Passes its options on to certsvc-mcp; the exit code is the server's. */
export const runMcp: Run<ConnectionFlags & { options: string[] }> = async (flags, { io }) => {
  // Only the command line sets these flags (connect.ts reads the environment itself).
  if (flags.apiKey !== undefined || flags.baseUrl !== undefined) throw new UsageError('certsvc mcp takes the key and URL from CERTSVC_API_KEY and CERTSVC_BASE_URL only (a flag would show the key in process lists and client configs).');
  let mcp: { main(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> };
  try {
    // An optional peer dependency: required only here, when the command runs.
    mcp = require('@certificate-service/mcp') as typeof mcp;
  } catch {
    throw new UsageError('certsvc mcp needs @certificate-service/mcp: npm install -g @certificate-service/mcp (or run npx -p @certificate-service/mcp certsvc-mcp directly).');
  }
  return mcp.main(flags.options, io.env, io);
};
