// completion/complete for the arguments that name something in the service: the prompt's
// batchId is completed from the active batches. One list request (the service's first page of
// 100, the most a page holds) serves the keystrokes of the next few seconds; ids are matched by
// prefix, case-insensitively. A failure is an error that says what happened, redacted; nothing
// is written. The same answer for both eras: each SDK's glue turns `unknown` into its own
// -32602 (modern.ts, server.ts).
import { CertificateServiceError, type CertificateServiceClient } from '@certificate-service/sdk';
import { silentLogger } from './log';
import { ISSUE_FROM_CSV } from './prompts';
import { Redactor } from './redact';
import { RESOURCE_URIS } from './resources';
import type { ServerOptions } from './server';

/** The spec's cap on values in one completion answer. */
export const MAX_COMPLETION_VALUES = 100;
/** How long one list of batch ids answers completions (a user typing an id). */
export const COMPLETION_CACHE_MS = 10_000;

export interface CompletionRequest {
  ref: { type: string; name?: string; uri?: string };
  argument: { name: string; value: string };
}

export type Completion = {
  values: string[];
  total?: number;
  hasMore: boolean;
};

export type CompletionAnswer = { completion: Completion } | { unknown: string };

/** Candidates for one argument: the ids, and whether the service holds more than it sent. */
type Source = () => Promise<{ ids: string[]; more: boolean }>;

/**
 * The answer for `prefix` out of `ids`: at most 100 values; `total` when it is known (the
 * service sent everything), `hasMore` when more match than are sent, or may (it has more).
 */
export function completionOf(ids: string[], prefix: string, more: boolean): Completion {
  const lower = prefix.toLowerCase();
  const matches = ids.filter((id) => id.toLowerCase().startsWith(lower));
  const values = matches.slice(0, MAX_COMPLETION_VALUES);
  return more ? { values, hasMore: true } : { values, total: matches.length, hasMore: matches.length > values.length };
}

/** The active batches' ids, listed once per COMPLETION_CACHE_MS (concurrent asks share one request). */
function batchIds(client: () => CertificateServiceClient, now: () => number): Source {
  let cached: { at: number; answer: Promise<{ ids: string[]; more: boolean }> } | undefined;
  return () => {
    if (cached && now() - cached.at < COMPLETION_CACHE_MS) return cached.answer;
    const answer = Promise.resolve()
      .then(() => client().listBatches({ status: 'active', limit: MAX_COMPLETION_VALUES }))
      .then((page) => ({ ids: page.items.map((b) => b.id), more: page.nextCursor !== null }));
    const entry = { at: now(), answer };
    cached = entry;
    // A failure is not kept: the next keystroke asks again.
    answer.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return answer;
  };
}

/** Per server options (a 2026-07-28 instance is made per request): the sources share their cache. */
const completers = new WeakMap<ServerOptions, (request: CompletionRequest) => Promise<CompletionAnswer>>();

/** Answers completion/complete for this server's prompt and resources. */
export function completer(options: ServerOptions, now: () => number = Date.now): (request: CompletionRequest) => Promise<CompletionAnswer> {
  const known = completers.get(options);
  if (known) return known;
  const client = () => (typeof options.client === 'function' ? options.client() : options.client);
  const redactor = new Redactor(options.secrets);
  // Prompt name → argument → where its values come from; other arguments complete to nothing.
  const prompts: Record<string, Record<string, Source>> = { [ISSUE_FROM_CSV]: { batchId: batchIds(client, now) } };
  // The resources are fixed URIs, not templates: nothing to complete (as the SDKs answer).
  const resources = new Set<string>(Object.values(RESOURCE_URIS));
  const complete = async ({ ref, argument }: CompletionRequest): Promise<CompletionAnswer> => {
    if (ref.type === 'ref/resource') return resources.has(ref.uri ?? '') ? { completion: { values: [], hasMore: false } } : { unknown: `Resource template ${ref.uri} not found` };
    const prompt = ref.type === 'ref/prompt' ? prompts[ref.name ?? ''] : undefined;
    if (!prompt) return { unknown: ref.type === 'ref/prompt' ? `Prompt ${ref.name} not found` : `Invalid completion reference: ${ref.type}` };
    const source = Object.hasOwn(prompt, argument.name) ? prompt[argument.name] : undefined;
    if (!source) return { completion: { values: [], hasMore: false } };
    try {
      const { ids, more } = await source();
      return { completion: completionOf(ids, argument.value, more) };
    } catch (error) {
      const said = error instanceof CertificateServiceError ? `${error.code}: ${error.message}` : 'an unexpected error (details are in the server log)';
      if (!(error instanceof CertificateServiceError)) (options.log ?? silentLogger).warn(`completing ${argument.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      throw new Error(redactor.text(`Could not list the batches to complete ${argument.name}: ${said}`));
    }
  };
  completers.set(options, complete);
  return complete;
}
