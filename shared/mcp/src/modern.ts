// The 2026-07-28 era on the `@modelcontextprotocol/server` 2.x McpServer: no session, each
// request carries its version and the client's capabilities in `_meta`, `server/discover`
// answered by the SDK, and a confirmation is an input-required result (the client asks the user
// and calls again) instead of a server-sent elicitation/create. What is offered, the runner, the
// tokens and the compact tools/list entries are the 2025 server's own (server.ts offer): only
// this SDK glue differs.
import { acceptedContent, CLIENT_CAPABILITIES_META_KEY, inputRequired, McpServer, ProtocolError, ProtocolErrorCode, type ServerContext, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod/v4';
import type { ConfirmDependencies } from './confirm';
import { schema } from './listing';
import { readResource, RESOURCE_MIME_TYPE } from './resources';
import { capabilities, CONFIRM_SCHEMA, INSTRUCTIONS, offer, SERVER_NAME, SERVER_TITLE, toolRunner, type Era, type ServerOptions } from './server';

/**
 * A zod (3.25 `zod/v4`) schema in the face the 2.x SDK takes (Standard Schema with JSON
 * Schema): zod's own validation, and the JSON Schema the 2025 list already sends.
 */
function standard<S extends z.ZodType>(schema: S, json: Record<string, unknown>): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  return { '~standard': { ...schema['~standard'], jsonSchema: { input: () => json, output: () => json } } };
}

/** The user's answer to the first round's question, from the call that comes back. */
function answerOf(ctx: ServerContext): NonNullable<ConfirmDependencies['round']>['answer'] {
  const response = ctx.mcpReq.inputResponses?.confirm as { action?: unknown } | undefined;
  if (!response) return undefined;
  if (response.action === 'accept') return acceptedContent(ctx.mcpReq.inputResponses, 'confirm')?.confirm === true ? 'accept' : 'decline';
  return response.action === 'decline' ? 'decline' : 'cancel';
}

/** The 2026-07-28 era: a confirmation asks by an input-required round, for a client that declared elicitation in this request. */
function modernEra(server: McpServer): Era {
  return {
    tool: (tool, entry, run) =>
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: standard(z.object(tool.input), entry.inputSchema), outputSchema: standard(tool.output, entry.outputSchema ?? {}), annotations: tool.annotations },
        async (args, ctx) => {
          // What this request's client declared, from its _meta envelope (serveStdio does not copy it
          // to the instance as the HTTP entry does).
          const envelope = ctx.mcpReq.envelope as Record<string, { elicitation?: unknown } | undefined> | undefined;
          const canElicit = !!(envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? envelope?.clientCapabilities ?? server.server.getClientCapabilities())?.elicitation;
          const reply = await run(args, {
            signal: ctx.mcpReq.signal,
            progressToken: ctx.mcpReq._meta?.progressToken,
            notify: (n) => ctx.mcpReq.notify(n),
            round: canElicit ? { state: ctx.mcpReq.requestState<string>(), answer: answerOf(ctx) } : undefined,
          });
          if (reply.kind === 'result') return reply.result;
          return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ mode: 'form', message: reply.question, requestedSchema: CONFIRM_SCHEMA }) }, requestState: reply.state });
        },
      ),
    resource: (resource) => server.registerResource(resource.name, resource.uri, { title: resource.title, description: resource.description, mimeType: RESOURCE_MIME_TYPE }, async (uri) => readResource(resource, uri)),
    prompt: (prompt) =>
      server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description, argsSchema: standard(z.object(prompt.args), schema(z.object(prompt.args), 'input')) }, (args) => prompt.get(args)),
    completions: (complete) =>
      server.server.setRequestHandler('completion/complete', async (request) => {
        const answer = await complete(request.params);
        if ('unknown' in answer) throw new ProtocolError(ProtocolErrorCode.InvalidParams, answer.unknown);
        return answer;
      }),
  };
}

/**
 * A 2.x server with what the options offer (one per HTTP request or stdio connection, as the
 * SDK asks). It serves 2026-07-28 only: both entries run with `legacy: 'reject'`, 2025-era
 * clients go to createServer (http.ts, stdio.ts).
 */
export function createModernServer(options: ServerOptions, runner = toolRunner(options)): McpServer {
  const server = new McpServer({ name: SERVER_NAME, title: SERVER_TITLE, version: options.version ?? '0.0.0' }, { capabilities: capabilities(), instructions: INSTRUCTIONS });
  offer(modernEra(server), options, runner);
  return server;
}
