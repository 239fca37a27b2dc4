// What a tool is: a name, a description written for a model, a zod input schema, an output
// schema where it helps, the four annotations, and `run`. Tools return plain data; the server
// turns it into a CallToolResult (text and structuredContent) and every failure into a tool
// error, through answers.ts, the one place errors are worded.
import type { CertificateServiceClient, HeaderBag } from '@certificate-service/sdk';
import type { z } from 'zod/v4';
import type { Confirm, Unconfirmed } from './confirm';
import type { Logger } from './log';

export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a tool gets besides its arguments. */
export interface ToolContext {
  client: CertificateServiceClient;
  /** Asks the user (elicitation) or answers with a dry run and a confirmation token. */
  confirm: Confirm;
  /** Aborted by `notifications/cancelled` or when the client goes away. */
  signal: AbortSignal;
  /** An MCP progress notification, when the client asked for them (a progressToken). */
  progress(done: number, total: number, message: string): void;
  log: Logger;
  /** Issue to more than this many recipients (after skip-existing) asks for confirmation. */
  confirmAbove: number;
  /** A client for `doctor`, whose transport reports every answer it sees. */
  observedClient(observe: (status: number, headers: HeaderBag, body: unknown) => void): CertificateServiceClient;
}

/** A tool's answer: data for structuredContent, and the text a model reads (JSON of the data unless given). */
export interface ToolAnswer {
  data: Record<string, unknown>;
  text?: string;
}

/** What a run ends with: an answer, or what the confirmation step said instead (confirm.ts). */
export type ToolOutcome = ToolAnswer | Unconfirmed;

/**
 * What a tool's example acts on. Each call makes a new one (or names one), so an example runs
 * as often as a test likes: against the sandbox they are real, in a fuzz test fixed ids.
 */
export interface ExampleTargets {
  /** An active batch. */
  batch(): Promise<string>;
  /** An archived batch. */
  archivedBatch(): Promise<string>;
  /** A design id. */
  design(): Promise<string>;
  /** A certificate, with its batch and recipient id and its email. */
  certificate(): Promise<{ certificateId: string; batchId: string; recipientId: string; email: string }>;
  /** A webhook subscription id. */
  subscription(): Promise<string>;
}

export interface ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: Shape;
  /** What structuredContent holds: the top-level fields callers read, typed (loose: more may follow). */
  output: z.ZodObject<any>;
  annotations: Annotations;
  run(args: z.infer<z.ZodObject<Shape>>, context: ToolContext): Promise<ToolOutcome>;
  /** Arguments of a typical call, checked against `input` by the compiler; the tests run every tool with them. */
  example(on: ExampleTargets): Promise<z.input<z.ZodObject<Shape>>>;
}

/** Keeps each tool file's argument types checked against its own schema. */
export function defineTool<Shape extends z.ZodRawShape>(tool: ToolDefinition<Shape>): ToolDefinition<Shape> {
  return tool;
}

/** Annotations of a tool that only reads the service. */
export const READ_ONLY: Annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
