// The MCP server: what both protocol eras serve (the tools of the list, tools/index.ts, that
// --tools and --read-only leave, the resources, the prompt and completions), registered once
// through an Era (offer), and the runner that runs each call with its context (the client, the
// confirmation step, progress, the cancel signal). The 2025 era's glue (SDK 1.x) is here
// (createServer), the 2026-07-28 era's (SDK 2.x) in modern.ts.
import { serviceFingerprint, type CertificateServiceClient, type HeaderBag } from '@certificate-service/sdk';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, CompleteRequestSchema, ElicitResultSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ServerNotification, type ServerRequest, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { failure, success, type ToolResult } from './answers';
import { completer, type CompletionAnswer, type CompletionRequest } from './completions';
import { ConfirmationTokens, confirmer, type ConfirmDependencies } from './confirm';
import { toolListing } from './listing';
import { silentLogger, type Logger } from './log';
import { PROMPTS, type PromptDefinition } from './prompts';
import { Redactor } from './redact';
import { readResource, RESOURCE_MIME_TYPE, RESOURCES, type ResourceDefinition } from './resources';
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
  /** The service the calls go to, the SDK's serviceFingerprint(baseUrl, apiKey), which tokens are bound to (default: the client's base URL). */
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
  notify(notification: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; total: number; message: string } }): Promise<void>;
  /** A 2025-era client that declared elicitation: ask it (elicitation/create). */
  ask?: (params: { mode: 'form'; message: string; requestedSchema: typeof CONFIRM_SCHEMA }, timeoutMs: number) => Promise<{ action: string; content?: Record<string, unknown> }>;
  /** A 2026-07-28 client that declared elicitation: see ConfirmDependencies.round. */
  round?: ConfirmDependencies['round'];
}

/** How a call ends: a result, or (a 2026-07-28 round only: CallIo.round) a question for the user first. */
export type Reply = { kind: 'result'; result: ToolResult } | { kind: 'ask'; question: string; state: string };

/** The confirmation question's form: one box to tick. */
export const CONFIRM_SCHEMA: { type: 'object'; properties: { confirm: { type: 'boolean'; title: string; description: string } }; required: string[] } = {
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Yes, do it', description: 'Tick to go ahead; anything else changes nothing.' } },
  required: ['confirm'],
};

/** Runs tools for one server instance, whichever SDK and era carry the call; counts the calls in flight. */
export function toolRunner(options: ServerOptions) {
  const redactor = new Redactor(options.secrets);
  const log = options.log ?? silentLogger;
  const tokens = options.tokens ?? new ConfirmationTokens();
  const running = new Set<Promise<unknown>>();
  const call = (tool: ToolDefinition<any>, args: Record<string, unknown>, io: CallIo): Promise<Reply> => {
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
          service: options.service ?? serviceFingerprint(client.baseUrl, undefined),
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
        (outcome): Reply => {
          if ('kind' in outcome && outcome.kind === 'ask') return { kind: 'ask', question: redactor.text(outcome.question), state: outcome.state };
          const answer = 'kind' in outcome ? outcome.answer : outcome;
          // A cancelled call's answer is not delivered (the SDK drops it): the log keeps it.
          if (signal.aborted) log.warn(`${tool.name} was cancelled; it finished the call in flight and sent nothing more: ${JSON.stringify(answer.data).slice(0, 2000)}`);
          return { kind: 'result', result: success(answer, redactor, true) };
        },
        (error: unknown): Reply => ({ kind: 'result', result: failure(error, tool.name, redactor, log) }),
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

export type ToolRunner = ReturnType<typeof toolRunner>;

/** What both eras declare besides tools, resources and prompts (which the SDKs add as they are registered); a fresh object for each server, which its SDK may extend. */
export const capabilities = () => ({ logging: {}, completions: {} });

/**
 * How one protocol era's SDK registers what the server offers; offer() calls it for each.
 * `entry` is the tool's tools/list entry (listing.ts), the same for both eras; `run` runs a call
 * (toolRunner) with the CallIo the era makes from its request.
 */
export interface Era {
  tool(tool: ToolDefinition<any>, entry: Tool, run: (args: Record<string, unknown>, io: CallIo) => Promise<Reply>): void;
  resource(resource: ResourceDefinition): void;
  prompt(prompt: PromptDefinition): void;
  completions(complete: (request: CompletionRequest) => Promise<CompletionAnswer>): void;
}

/** The selection and its tools/list entries, made once per options (a 2026-07-28 instance is made per HTTP request). */
const prepared = new WeakMap<ServerOptions, { tools: ToolDefinition<any>[]; listing: Tool[] }>();

export function offered(options: ServerOptions): { tools: ToolDefinition<any>[]; listing: Tool[] } {
  let selection = prepared.get(options);
  if (!selection) {
    const tools = selectTools(options);
    selection = { tools, listing: toolListing(tools) };
    prepared.set(options, selection);
  }
  return selection;
}

/** Registers everything this server offers through one era's SDK: the one registration both eras share. */
export function offer(era: Era, options: ServerOptions, runner: ToolRunner): void {
  const { tools, listing } = offered(options);
  tools.forEach((tool, i) => era.tool(tool, listing[i], (args, io) => runner.call(tool, args, io)));
  for (const resource of RESOURCES) era.resource(resource);
  for (const prompt of PROMPTS) era.prompt(prompt);
  era.completions(completer(options));
}

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

/** The 2025 era: SDK 1.x's McpServer, one per session; a confirmation asks by elicitation/create. */
function legacyEra(server: McpServer): Era {
  return {
    tool: (tool, _entry, run) =>
      server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: tool.annotations }, async (args: Record<string, unknown>, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => {
        const canElicit = !!server.server.getClientCapabilities()?.elicitation;
        const reply = await run(args, {
          signal: extra.signal,
          progressToken: extra._meta?.progressToken,
          notify: (n) => extra.sendNotification(n),
          ask: canElicit ? (params, timeout) => extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, { timeout }) : undefined,
        });
        // No `round` was given, so the confirmation asked by elicitation/create and never ends in a question.
        return reply.kind === 'result' ? reply.result : { isError: true, content: [{ type: 'text' as const, text: `${tool.name} asked a question a 2025-era call cannot carry; nothing was done.` }] };
      }),
    resource: (resource) => server.registerResource(resource.name, resource.uri, { title: resource.title, description: resource.description, mimeType: RESOURCE_MIME_TYPE }, async (uri) => readResource(resource, uri)),
    prompt: (prompt) => server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description, argsSchema: prompt.args }, (args) => prompt.get(args)),
    completions: (complete) =>
      server.server.setRequestHandler(CompleteRequestSchema, async (request) => {
        const answer = await complete(request.params);
        if ('unknown' in answer) throw new McpError(ErrorCode.InvalidParams, answer.unknown);
        return answer;
      }),
  };
}

export function createServer(options: ServerOptions): CertificateMcpServer {
  const runner = toolRunner(options);
  const server = new McpServer({ name: SERVER_NAME, title: SERVER_TITLE, version: options.version ?? '0.0.0' }, { capabilities: capabilities(), instructions: INSTRUCTIONS });
  offer(legacyEra(server), options, runner);
  // The SDK's handler for tools/list is replaced by the same list, compacted (listing.ts), as the 2.x SDK sends it from the same entries.
  const { tools, listing } = offered(options);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  refuseUnknownTools(server, new Set(tools.map((t) => t.name)));
  return {
    server,
    tools: tools.map((t) => t.name),
    idle: runner.idle,
  };
}
