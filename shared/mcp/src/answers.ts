// The one place a tool's outcome becomes an MCP CallToolResult. A CertificateServiceError
// becomes a tool error (isError: true) carrying the core's message and hint, plus this host's
// words (the server's environment, not a flag); anything else becomes a generic error whose
// details go to the log only. Every text is redacted on its way out.
import { CertificateServiceError, hostHint, type HostWords } from '@certificate-service/sdk';
import type { Logger } from './log';
import type { Redactor } from './redact';
import type { ToolAnswer } from './tool';

/** The MCP server's words after the core's hint. */
export const MCP_WORDS: HostWords = {
  auth: 'The key comes from CERTSVC_API_KEY in this MCP server\'s environment (the "env" of its entry in the client\'s configuration); a tool cannot change it.',
  'subscription-limit': 'List them with list_subscriptions and delete one with delete_subscription.',
  'issue-unknown': 'Call issue_certificates again with the same list: it skips what is already issued and issues only what is missing.',
  'unexpected-response': 'Check CERTSVC_BASE_URL in this MCP server\'s environment.',
  'unknown-variable': 'issue_certificates with allowUnknownVariables: true sends such keys as given; use it only if the user says so.',
};

/** A tools/call result in the shape both SDKs take: the text a model reads, and the data. */
export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export function success(answer: ToolAnswer, redactor: Redactor, structured: boolean): ToolResult {
  const data = redactor.value(answer.data);
  return {
    content: [{ type: 'text', text: redactor.text(answer.text ?? JSON.stringify(data)) }],
    ...(structured ? { structuredContent: data } : {}),
  };
}

/** What a failed call says: the code, what happened, what to do next. */
export function describeError(error: CertificateServiceError): Record<string, unknown> {
  const hint = hostHint(error, MCP_WORDS);
  return {
    error: error.code,
    message: error.message,
    ...(hint ? { hint } : {}),
    ...(error.field ? { field: error.field } : {}),
    ...(error.status ? { status: error.status } : {}),
    ...(error.outcomeUnknown ? { outcomeUnknown: true } : {}),
    ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
  };
}

export function failure(error: unknown, tool: string, redactor: Redactor, log: Logger): ToolResult {
  if (error instanceof CertificateServiceError) {
    const described = describeError(error);
    const text = [`${error.code}: ${error.message}`, described.hint].filter(Boolean).join('\n');
    return { isError: true, content: [{ type: 'text', text: redactor.text(text) }] };
  }
  // A bug, not the service: its message may say anything, so only the log sees it.
  log.warn(`${tool} failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return { isError: true, content: [{ type: 'text', text: `${tool} failed with an unexpected error inside the MCP server (details are in its log, on stderr). Nothing more is known about whether it took effect.` }] };
}
