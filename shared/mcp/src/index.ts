// `@certificate-service/mcp`: the MCP server for the Certificate Service, to embed or to test.
// The bin is `certsvc-mcp` (main.ts); `certsvc mcp` runs the same `main`.
export { createServer, selectTools, DEFAULT_CONFIRM_ABOVE, ELICITATION_TIMEOUT_MS, SERVER_NAME, UsageError, type CertificateMcpServer, type ServerOptions, type ToolSelection } from './server';
export { main, parseFlags, USAGE, type Flags, type Io } from './main';
export { serveHttp, guard, DEFAULT_PORT, type HttpOptions, type RunningHttp } from './http';
export { ConfirmationTokens, confirmer, argumentsHash, confirmationsDir, CONFIRMATION_TTL_MS, type Confirm, type ConfirmRequest, type ConfirmResult, type Unconfirmed, type RedeemProblem } from './confirm';
export { stateDir } from '@certificate-service/sdk'; // where the confirmation key and used tokens live
export { TOOLS } from './tools';
export { EVENTS, ERRORS } from './resources';
export { issueFromCsvText, ISSUE_FROM_CSV } from './prompts';
export { completer, completionOf, COMPLETION_CACHE_MS, MAX_COMPLETION_VALUES, type Completion, type CompletionAnswer, type CompletionRequest } from './completions';
export type { ToolDefinition, ToolContext, ToolAnswer, ToolOutcome, ExampleTargets, Annotations } from './tool';
