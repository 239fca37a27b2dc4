// The same tools on the `@modelcontextprotocol/server` 2.x McpServer, which serves the
// 2026-07-28 revision: no session, each request carries its version and the client's
// capabilities in `_meta`, `server/discover` answered by the SDK, and a confirmation is an
// input-required result (the client asks the user and calls again) instead of a server-sent
// elicitation/create. The tool definitions, the runner (server.ts toolRunner), the tokens and
// the compact tools/list (listing.ts) are the 2025 server's own: only the SDK glue differs.
import { acceptedContent, CLIENT_CAPABILITIES_META_KEY, inputRequired, McpServer, ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod/v4';
import { completer } from './completions';
import { AskFirst, type ConfirmDependencies } from './confirm';
import { schema, toolListing } from './listing';
import { registerPrompts } from './prompts';
import { registerResources } from './resources';
import type { ToolDefinition } from './tool';
import { capabilities, CONFIRM_SCHEMA, INSTRUCTIONS, SERVER_NAME, SERVER_TITLE, selectTools, toolRunner, type ServerOptions } from './server';

/**
 * A zod (3.25 `zod/v4`) object in the face the 2.x SDK takes (Standard Schema with JSON
 * Schema): zod's own validation, and the JSON Schema the 2025 list already sends.
 */
function standard(schema: z.ZodObject<any>, json: unknown) {
  return { '~standard': { ...schema['~standard'], jsonSchema: { input: () => json, output: () => json } } } as never;
}

/** The user's answer to the first round's question, from the call that comes back. */
function answerOf(ctx: ServerContext): NonNullable<ConfirmDependencies['round']>['answer'] {
  const response = ctx.mcpReq.inputResponses?.confirm as { action?: unknown } | undefined;
  if (!response) return undefined;
  if (response.action === 'accept') return acceptedContent(ctx.mcpReq.inputResponses, 'confirm')?.confirm === true ? 'accept' : 'decline';
  return response.action === 'decline' ? 'decline' : 'cancel';
}

/** The selection and its JSON Schemas, made once per options (an instance is made per HTTP request). */
const prepared = new WeakMap<ServerOptions, { tools: ToolDefinition<any>[]; listing: ReturnType<typeof toolListing> }>();

/**
 * A 2.x server with the tools a selection leaves (one per HTTP request or stdio connection, as
 * the SDK asks). It serves 2026-07-28 only: both entries run with `legacy: 'reject'`, 2025-era
 * clients go to createServer (http.ts, stdio.ts).
 */
export function createModernServer(options: ServerOptions, runner = toolRunner(options)): McpServer {
  if (!prepared.has(options)) {
    const selected = selectTools(options);
    prepared.set(options, { tools: selected, listing: toolListing(selected) });
  }
  const { tools, listing } = prepared.get(options)!;
  const server = new McpServer({ name: SERVER_NAME, title: SERVER_TITLE, version: options.version ?? '0.0.0' }, { capabilities: capabilities(), instructions: INSTRUCTIONS });
  tools.forEach((tool, i) => {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: standard(z.object(tool.input), listing[i].inputSchema), outputSchema: standard(tool.output, listing[i].outputSchema), annotations: tool.annotations },
      (async (args: Record<string, unknown>, ctx: ServerContext) => {
        // What this request's client declared, from its _meta envelope (serveStdio does not copy it
        // to the instance as the HTTP entry does).
        const envelope = ctx.mcpReq.envelope as Record<string, { elicitation?: unknown } | undefined> | undefined;
        const canElicit = !!(envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? envelope?.clientCapabilities ?? server.server.getClientCapabilities())?.elicitation;
        const result = await runner.call(tool, args, {
          signal: ctx.mcpReq.signal,
          progressToken: ctx.mcpReq._meta?.progressToken,
          notify: (n) => ctx.mcpReq.notify(n),
          round: canElicit ? { state: ctx.mcpReq.requestState<string>(), answer: answerOf(ctx) } : undefined,
        });
        if (!(result instanceof AskFirst)) return result;
        return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ mode: 'form', message: result.question, requestedSchema: CONFIRM_SCHEMA as never }) }, requestState: result.state });
      }) as never,
    );
  });
  registerResources(server as never);
  registerPrompts(server as never, (shape) => standard(z.object(shape), schema(z.object(shape), 'input')));
  const complete = completer(options);
  server.server.setRequestHandler('completion/complete', async (request) => {
    const answer = await complete(request.params);
    if ('unknown' in answer) throw new ProtocolError(ProtocolErrorCode.InvalidParams, answer.unknown);
    return answer;
  });
  return server;
}
