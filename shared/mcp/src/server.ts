// The MCP server: registers the tools of the list (tools/index.ts) that --tools and
// --read-only leave, the resources and the prompt, and runs each call with its context
// (the client, the confirmation step, progress, the cancel signal).
import type { CertificateServiceClient, HeaderBag } from '@certificate-service/sdk';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, CompleteRequestSchema, ElicitResultSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { failure, success } from './answers';
import { completer } from './completions';
import { AskFirst, ConfirmationTokens, confirmer, serviceIdentity, type ConfirmDependencies } from './confirm';
import { toolListing } from './listing';
import { silentLogger, type Logger } from './log';
import { registerPrompts } from './prompts';
import { Redactor } from './redact';
import { registerResources } from './resources';
import type { ToolDefinition } from './tool';
import { TOOLS } from './tools';

export const SERVER_NAME = 'certificate-service';
export const DEFAULT_CONFIRM_ABOVE = 25;
export const SERVER_TITLE = 'Certificate Service';
export const INSTRUCTIONS =
  'Tools for the Certificate Service: issue, send and look up certificates in batches. Find a batch (list_batches) and its variables (get_batch) before issuing; ' +
  'issue_certificates skips emails already in the batch, so repeating a call never issues twice; it alone uses quota (1 unit per certificate). The service allows 120 requests a minute; the server waits when it must. ' +
  'Tools that change or delete something, send email, or issue many ask the user first; a client that cannot ask gets a dry run with a confirmationToken: show the user what would happen and, only if they agree, call again with the same arguments plus the token. ' +
  'The API key is the server\'s own: no tool takes one. Creating webhook subscriptions is left to the certsvc CLI.';
/** How long the user has to answer a confirmation the client shows; silence changes nothing. */
export const ELICITATION_TIMEOUT_MS = 30_000;

import { UsageError } from '@certificate-service/sdk';

export { UsageError };

export interface ToolSelection {
  /** Allow-list of tool names (--tools a,b); every tool when absent. */
  tools?: string[];
  /** Only read-only tools, whatever --tools says (--read-only). */
  readOnly?: boolean;
}

/** The tools a selection leaves; an unknown name in the allow-list is a usage error. */
export function selectTools(selection: ToolSelection = {}, all: ReadonlyArray<ToolDefinition<any>> = TOOLS): ToolDefinition<any>[] {
  const known = all.map((t) => t.name);
  const unknown = (selection.tools ?? []).filter((n) => !known.includes(n));
  if (unknown.length) throw new UsageError(`Unknown tool${unknown.length > 1 ? 's' : ''} in --tools: ${unknown.join(', ')}. The tools are: ${known.join(', ')}.`);
  return all.filter((t) => (!selection.tools || selection.tools.includes(t.name)) && (!selection.readOnly || t.annotations.readOnlyHint));
}

export interface ServerOptions extends ToolSelection {
  /** The API client, or how to make it at the first call (the bin: from CERTSVC_API_KEY and CERTSVC_BASE_URL). */
  client: CertificateServiceClient | (() => CertificateServiceClient);
  /** A second client whose transport reports each answer, for `doctor`. */
  observedClient?: (observe: (status: number, headers: HeaderBag, body: unknown) => void) => CertificateServiceClient;
  /** Confirm an issue of more than this many certificates (default 25). */
  confirmAbove?: number;
  /** Strings no answer may carry (the API key, the HTTP token). */
  secrets?: ReadonlyArray<string | undefined>;
  log?: Logger;
  /** Confirmation tokens (default: kept in the state folder, confirmationsDir()). */
  tokens?: ConfirmationTokens;
  /** The service the calls go to, serviceIdentity(baseUrl, apiKey), which tokens are bound to (default: the client's base URL). */
  service?: string;
  /** How long to wait for the user's answer to a confirmation (default 30 s). */
  askTimeoutMs?: number;
  version?: string;
}

export interface CertificateMcpServer {
  server: McpServer;
  tools: string[];
  /** Resolves when no tool call is running (the bin waits for it before exiting). */
  idle(): Promise<void>;
}

/** What one call needs from the SDK that carries it (either era). */
export interface CallIo {
  signal: AbortSignal;
  progressToken?: string | number;
  notify(notification: { method: 'notifications/progress'; params: Record<string, unknown> }): Promise<void>;
  /** A 2025-era client that declared elicitation: ask it (elicitation/create). */
  ask?: (params: Record<string, unknown>, timeoutMs: number) => Promise<{ action: string; content?: Record<string, unknown> }>;
  /** A 2026-07-28 client that declared elicitation: see ConfirmDependencies.round. */
  round?: ConfirmDependencies['round'];
}

/** The confirmation question's form: one box to tick. */
export const CONFIRM_SCHEMA = { type: 'object', properties: { confirm: { type: 'boolean', title: 'Yes, do it', description: 'Tick to go ahead; anything else changes nothing.' } }, required: ['confirm'] } as const;

/** Runs tools for one server instance, whichever SDK and era carry the call; counts the calls in flight. */
export function toolRunner(options: ServerOptions) {
  const redactor = new Redactor(options.secrets);
  const log = options.log ?? silentLogger;
  const tokens = options.tokens ?? new ConfirmationTokens();
  const running = new Set<Promise<unknown>>();
  const call = (tool: ToolDefinition<any>, args: Record<string, unknown>, io: CallIo): Promise<CallToolResult | AskFirst> => {
    const { signal, progressToken, ask } = io;
    const connect = () => (typeof options.client === 'function' ? options.client() : options.client);
    const done = Promise.resolve()
      .then(() => connect())
      .then((client) => tool.run(args, {
        client,
        confirmAbove: options.confirmAbove ?? DEFAULT_CONFIRM_ABOVE,
        signal,
        log,
        observedClient: options.observedClient ?? (() => client),
        progress: (n, total, message) => {
          if (progressToken === undefined) return;
          void io.notify({ method: 'notifications/progress', params: { progressToken, progress: n, total, message: redactor.text(message) } }).catch(() => undefined);
        },
        confirm: confirmer({
          tokens,
          service: options.service ?? serviceIdentity(client.baseUrl, undefined),
          round: io.round,
          elicit: ask
            ? async (message) => {
                // A client that cannot show the question (or errs, or times out) has not said yes.
                const answer = await ask({ mode: 'form', message: redactor.text(message), requestedSchema: CONFIRM_SCHEMA }, options.askTimeoutMs ?? ELICITATION_TIMEOUT_MS).catch((error: unknown) => {
                  log.warn(`${tool.name}: the confirmation could not be asked (${error instanceof Error ? error.message : String(error)}); nothing was done`);
                  return { action: 'cancel' as const, content: undefined };
                });
                if (answer.action !== 'accept') return answer.action === 'decline' ? 'decline' : 'cancel';
                return answer.content?.confirm === true ? 'accept' : 'decline';
              }
            : undefined,
        }),
      }))
      .then(
        (answer) => {
          // A cancelled call's answer is not delivered (the SDK drops it): the log keeps it.
          if (signal.aborted) log.warn(`${tool.name} was cancelled; it finished the call in flight and sent nothing more: ${JSON.stringify(answer.data).slice(0, 2000)}`);
          return success(answer, redactor, true);
        },
        (error: unknown) => (error instanceof AskFirst ? new AskFirst(redactor.text(error.question), error.state) : failure(error, tool.name, redactor, log)),
      );
    running.add(done);
    return done.finally(() => running.delete(done));
  };
  return {
    call,
    idle: async () => {
      while (running.size) await Promise.allSettled([...running]);
    },
  };
}

/** What both eras declare besides tools, resources and prompts (which the SDKs add as they are registered); a fresh object for each server, which its SDK may extend. */
export const capabilities = () => ({ logging: {}, completions: {} });

/**
 * SDK 1.x answers a call to a tool it does not have with an isError result; the spec (tools,
 * "Error Handling": an unknown tool is a protocol error) and SDK 2.x (modern.ts) answer -32602.
 * A known tool goes on to the SDK's own handler (input and output validation, the call). That
 * handler is read from the SDK's map, which its types keep private: the SDK is pinned, and
 * test/mcp/eras.test.ts calls an unknown tool in both eras.
 */
function refuseUnknownTools(server: McpServer, names: ReadonlySet<string>): void {
  type Handler = (request: unknown, extra: unknown) => Promise<unknown>;
  const sdkCall = (server.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers?.get('tools/call');
  if (!sdkCall) throw new Error('@modelcontextprotocol/sdk has no tools/call handler to guard: the SDK changed');
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    if (!names.has(request.params.name)) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    return sdkCall(request, extra) as Promise<CallToolResult>;
  });
}

export function createServer(options: ServerOptions): CertificateMcpServer {
  const tools = selectTools(options);
  const runner = toolRunner(options);
  const server = new McpServer({ name: SERVER_NAME, title: SERVER_TITLE, version: options.version ?? '0.0.0' }, { capabilities: capabilities(), instructions: INSTRUCTIONS });

  for (const tool of tools) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: tool.annotations },
      async (args: Record<string, unknown>, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => {
        const canElicit = !!server.server.getClientCapabilities()?.elicitation;
        const result = await runner.call(tool, args, {
          signal: extra.signal,
          progressToken: extra._meta?.progressToken,
          notify: (n) => extra.sendNotification(n as ServerNotification),
          ask: canElicit ? (params, timeout) => extra.sendRequest({ method: 'elicitation/create', params } as ServerRequest, ElicitResultSchema, { timeout }) : undefined,
        });
        // Only a 2026-07-28 round can end in a question (modern.ts).
        if (result instanceof AskFirst) throw new Error('unreachable: a 2025-era call asked by elicitation/create');
        return result;
      },
    );
  }
  // The SDK's handler for tools/list is replaced by the same list, compacted (listing.ts).
  const listing = toolListing(tools);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  refuseUnknownTools(server, new Set(tools.map((t) => t.name)));
  registerResources(server);
  registerPrompts(server);
  const complete = completer(options);
  server.server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const answer = await complete(request.params);
    if ('unknown' in answer) throw new McpError(ErrorCode.InvalidParams, answer.unknown);
    return answer;
  });

  return {
    server,
    tools: tools.map((t) => t.name),
    idle: runner.idle,
  };
}
