/**
 * Small stand-ins for n8n's execution contexts, enough to run the nodes' real code:
 * IExecuteFunctions, ILoadOptionsFunctions, IHookFunctions and IWebhookFunctions.
 *
 * `helpers.httpRequestWithAuthentication` performs real HTTP (global fetch, so nock or the
 * sandbox answer it) and behaves like n8n's: the credential's `authenticate` adds the
 * Bearer header, `returnFullResponse` + `ignoreHttpStatusErrors` resolve every status with
 * {statusCode, headers, body}, JSON bodies are parsed, and a network failure rejects with
 * `new NodeApiError(node, axiosLikeError)`, exactly how n8n wraps it.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	INodeExecutionData,
	IPollFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { API_KEY, BASE_URL } from '../support/service';

export interface Credentials {
	apiKey: string;
	baseUrl: string;
}

/** Parameters as n8n would have resolved them for one item (after expressions). */
export type Params = Record<string, unknown>;
export type ParamsFor = Params | ((itemIndex: number) => Params);

export interface RecordedRequest {
	method: string;
	url: string;
	headers: Record<string, string>;
	body?: unknown;
}

export interface FakeOptions {
	params: ParamsFor;
	credentials?: Credentials;
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	node?: Partial<INode>;
	/** n8n's deduplication store (checkProcessedAndRecord), as a set of recorded ids. */
	processed?: Set<string>;
	/** Makes checkProcessedAndRecord throw this message (a database error). */
	processedFails?: string;
	/** n8n's deduplication store as its processes share it (deduplicationTable); replaces `processed`. */
	table?: DeduplicationTable;
	workflowId?: string;
	/** Keeps what the node logs, whatever the level. */
	logs?: string[];
}

export const TEST_CREDENTIALS: Credentials = {
	apiKey: API_KEY,
	baseUrl: BASE_URL,
};

/** A resource locator value as the editor stores it. */
export const rl = (value: string, mode: 'list' | 'id' | 'url' = 'id') => ({ __rl: true, mode, value });

/** Certificate → Issue of one recipient into the batch, with `more` parameters. */
export const issueParams = (batchId: string, name: string, email: string, more: Params = {}): Params => ({
	resource: 'certificate',
	operation: 'issue',
	batch: rl(batchId),
	name,
	email,
	...more,
});

function lookup(params: Params, path: string): unknown {
	let value: unknown = params;
	for (const key of path.split('.')) {
		if (!value || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[key];
	}
	return value;
}

function paramReader(paramsFor: ParamsFor) {
	return (name: string, itemIndex: number, fallback?: unknown, options?: { extractValue?: boolean }) => {
		const params = typeof paramsFor === 'function' ? paramsFor(itemIndex) : paramsFor;
		let value = lookup(params, name);
		if (value === undefined) return fallback;
		if (options?.extractValue && value && typeof value === 'object' && '__rl' in value) {
			value = (value as unknown as { value: unknown }).value;
		}
		return value;
	};
}

export function makeNode(overrides: Partial<INode> = {}): INode {
	return {
		id: 'node-1',
		name: 'Certificate Service',
		type: 'CUSTOM.certificateService',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		...overrides,
	};
}

/** n8n's httpRequestWithAuthentication over fetch, recording each request. */
export function makeHttp(node: INode, getCredentials: () => Credentials, requests: RecordedRequest[]) {
	return async function httpRequestWithAuthentication(
		this: unknown,
		credentialType: string,
		options: IHttpRequestOptions,
	) {
		if (credentialType !== 'certificateServiceApi') throw new Error(`unexpected credential ${credentialType}`);
		if (!options.returnFullResponse || !options.ignoreHttpStatusErrors) {
			throw new Error('the node must ask for the full response and ignore status errors');
		}
		const headers: Record<string, string> = {
			...(options.headers as Record<string, string>),
			Authorization: `Bearer ${getCredentials().apiKey}`,
		};
		const body = options.body as string | undefined;
		requests.push({
			method: String(options.method ?? 'GET'),
			url: options.url,
			headers,
			body: body === undefined ? undefined : JSON.parse(body),
		});
		let response: Response;
		try {
			response = await fetch(options.url, { method: options.method, headers, body });
		} catch (error) {
			// n8n (axios) rejects with an error carrying the socket code; it wraps it in a NodeApiError.
			// undici puts the socket error in `cause`; nock hands the given error over as is.
			const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
			const axiosLike = Object.assign(new Error(e.cause?.message ?? e.message), {
				name: 'AxiosError',
				code: e.code ?? e.cause?.code,
			});
			throw new NodeApiError(node, axiosLike as unknown as JsonObject);
		}
		const text = await response.text();
		const isJson = (response.headers.get('content-type') ?? '').includes('json');
		const responseHeaders: Record<string, string> = {};
		response.headers.forEach((value, key) => (responseHeaders[key] = value));
		return {
			statusCode: response.status,
			headers: responseHeaders,
			body: isJson && text ? JSON.parse(text) : text,
			statusMessage: response.statusText,
		};
	};
}

const logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
/** A logger that keeps each message, whatever its level. */
const recordingLogger = (into: string[]) => {
	const keep = (message: string) => void into.push(message);
	return { debug: keep, info: keep, warn: keep, error: keep };
};

export interface FakeExecute {
	context: IExecuteFunctions;
	requests: RecordedRequest[];
	/** What the node passed to addExecutionHints (shown in n8n's output pane). */
	hints: Array<{ message: string; type?: string; location?: string }>;
}

export function fakeExecute(options: FakeOptions): FakeExecute {
	const node = makeNode(options.node);
	const requests: RecordedRequest[] = [];
	const credentials = options.credentials ?? TEST_CREDENTIALS;
	const items: INodeExecutionData[] = options.items ?? [{ json: {} }];
	const getNodeParameter = paramReader(options.params);
	const hints: FakeExecute['hints'] = [];
	const context = {
		addExecutionHints: (...added: FakeExecute['hints']) => void hints.push(...added),
		getNode: () => node,
		getWorkflow: () => ({ id: options.workflowId ?? 'wf-test' }),
		getInputData: () => items,
		getNodeParameter,
		getCredentials: async () => credentials,
		continueOnFail: () => options.continueOnFail ?? false,
		logger: options.logs ? recordingLogger(options.logs) : logger,
		helpers: {
			httpRequestWithAuthentication: makeHttp(node, () => credentials, requests),
			// As n8n's: the base64 data of a binary property (throws when the item has none).
			getBinaryDataBuffer: async (itemIndex: number, property: string) => {
				const data = items[itemIndex]?.binary?.[property]?.data;
				if (data === undefined) throw new Error(`no binary property ${property}`);
				return Buffer.from(data, 'base64');
			},
			// As n8n's deduplication store in "entries" mode: new ids are recorded, known ones reported processed.
			checkProcessedAndRecord: async (ids: string[], _scope: string, opts: { maxEntries?: number }) => {
				if (options.processedFails) throw new Error(options.processedFails);
				if (options.table) return options.table.check(`${options.workflowId ?? 'wf-test'}:${node.id}`, ids, opts.maxEntries);
				const processed = options.processed ?? new Set<string>();
				const fresh = ids.filter((id) => !processed.has(id));
				for (const id of fresh) processed.add(id);
				return { new: fresh, processed: ids.filter((id) => !fresh.includes(id)) };
			},
			returnJsonArray: (data: IDataObject | IDataObject[]) =>
				(Array.isArray(data) ? data : [data]).map((json) => ({ json })),
		},
	};
	return { context: context as unknown as IExecuteFunctions, requests, hints };
}

/**
 * n8n 2.41.1's deduplication store as its processes share it (n8n/dist/deduplication/
 * deduplication-helper.js, "entries" mode): one row per node, read, then written back whole
 * `writeMs` later, with no lock; the first write is an insert, which the primary key refuses when
 * another process inserted the row meanwhile. `fail` makes the next calls throw (a database error).
 */
export interface DeduplicationTable {
	rows: Map<string, string[]>;
	calls: number;
	fail?: string;
	check(row: string, ids: string[], maxEntries?: number): Promise<{ new: string[]; processed: string[] }>;
}

export function deduplicationTable(writeMs = 5): DeduplicationTable {
	const table: DeduplicationTable = {
		rows: new Map(),
		calls: 0,
		async check(row, ids, maxEntries = Infinity) {
			table.calls++;
			if (table.fail) throw new Error(table.fail);
			const read = table.rows.get(row);
			await new Promise((resolve) => setTimeout(resolve, writeMs));
			if (!read) {
				if (table.rows.has(row)) throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
				table.rows.set(row, ids.slice(-maxEntries));
				return { new: ids, processed: [] };
			}
			const seen = new Set(read);
			const fresh = ids.filter((id) => !seen.has(id));
			table.rows.set(row, [...read, ...fresh].slice(-maxEntries));
			return { new: fresh, processed: ids.filter((id) => seen.has(id)) };
		},
	};
	return table;
}

export function fakeLoadOptions(options: { params?: Params; credentials?: Credentials } = {}) {
	const node = makeNode();
	const requests: RecordedRequest[] = [];
	const credentials = options.credentials ?? TEST_CREDENTIALS;
	const read = paramReader(options.params ?? {});
	const context = {
		getNode: () => node,
		getNodeParameter: (name: string, fallback?: unknown, opts?: { extractValue?: boolean }) =>
			read(name, 0, fallback, opts),
		getCredentials: async () => credentials,
		logger,
		helpers: { httpRequestWithAuthentication: makeHttp(node, () => credentials, requests) },
	};
	return { context: context as unknown as ILoadOptionsFunctions, requests };
}

export interface HookOptions {
	params: Params;
	webhookUrl: string;
	staticData?: IDataObject;
	mode?: 'manual' | 'trigger' | 'webhook';
	credentials?: Credentials;
}

export interface FakeHook {
	context: IHookFunctions;
	requests: RecordedRequest[];
	staticData: IDataObject;
	warnings: string[];
}

/**
 * What the trigger contexts (hook and poll) share: the node, the mode ('trigger' unless told),
 * activation, the node's static data, the parameters (of item 0), the credentials and n8n's
 * HTTP helper, recording each request.
 */
function triggerContext(node: INode, options: { params: Params; staticData?: IDataObject; mode?: string; credentials?: Credentials }) {
	const requests: RecordedRequest[] = [];
	const credentials = options.credentials ?? TEST_CREDENTIALS;
	const staticData = options.staticData ?? {};
	const read = paramReader(options.params);
	const shared = {
		getNode: () => node,
		getMode: () => options.mode ?? 'trigger',
		getActivationMode: () => 'activate',
		getWorkflowStaticData: (type: string) => {
			if (type !== 'node') throw new Error(`${node.name} keeps its state in node static data`);
			return staticData;
		},
		getNodeParameter: (name: string, fallback?: unknown, opts?: { extractValue?: boolean }) =>
			read(name, 0, fallback, opts),
		getCredentials: async () => credentials,
	};
	return { shared, requests, staticData, httpRequestWithAuthentication: makeHttp(node, () => credentials, requests) };
}

export function fakeHook(options: HookOptions): FakeHook {
	const node = makeNode({ name: 'Certificate Service Trigger', type: 'CUSTOM.certificateServiceTrigger' });
	const { shared, requests, staticData, httpRequestWithAuthentication } = triggerContext(node, options);
	const warnings: string[] = [];
	const context = {
		...shared,
		getWebhookName: () => 'default',
		getNodeWebhookUrl: (name: string) => (name === 'default' ? options.webhookUrl : undefined),
		logger: { ...logger, warn: (m: string) => warnings.push(m) },
		helpers: { httpRequestWithAuthentication },
	};
	return { context: context as unknown as IHookFunctions, requests, staticData, warnings };
}

export interface WebhookOptions {
	params: Params;
	rawBody: Buffer | string | undefined;
	headers: Record<string, string>;
	staticData: IDataObject;
	workflowId?: string;
	nodeId?: string;
}

export interface FakeResponse {
	statusCode?: number;
	headers: Record<string, string>;
	body?: unknown;
	/** Times the answer was written (res.end). */
	ended: number;
}

/**
 * The webhook call's context, and the response as Express gives it to n8n: `status`, `set`,
 * `json`/`send` (which end it, as Express's do), `end`. `answer(status)` writes the answer the
 * way n8n does after webhook() returned (webhook-request-handler.js): 200 once the execution
 * is stored and started, a 5xx when that failed.
 */
export function fakeWebhook(options: WebhookOptions) {
	const node = makeNode({
		id: options.nodeId ?? 'trigger-1',
		name: 'Certificate Service Trigger',
		type: 'CUSTOM.certificateServiceTrigger',
	});
	const response: FakeResponse = { headers: {}, ended: 0 };
	const res = {
		statusCode: 200,
		status(code: number) {
			res.statusCode = code;
			response.statusCode = code;
			return res;
		},
		set(name: string, value: string) {
			response.headers[name] = value;
			return res;
		},
		json(body: unknown) {
			response.body = body;
			return res.end();
		},
		send(body: unknown) {
			response.body = body;
			return res.end();
		},
		end() {
			response.ended++;
			return res;
		},
	};
	const answer = (status = 200, body: unknown = status < 300 ? { message: 'Workflow was started' } : { code: status, message: 'There was a problem executing the workflow' }) =>
		res.status(status).json(body);
	const warnings: string[] = [];
	const read = paramReader(options.params);
	// n8n lower-cases incoming header names.
	const headers = Object.fromEntries(Object.entries(options.headers).map(([k, v]) => [k.toLowerCase(), v]));
	const context = {
		getNode: () => node,
		getMode: () => 'webhook',
		getWorkflow: () => ({ id: options.workflowId ?? 'wf-1', name: 'wf', active: true }),
		getWorkflowStaticData: () => options.staticData,
		getRequestObject: () => ({ rawBody: options.rawBody, headers, body: {} }),
		getResponseObject: () => res,
		getHeaderData: () => headers,
		getBodyData: () => ({}),
		getNodeParameter: (name: string, fallback?: unknown, opts?: { extractValue?: boolean }) =>
			read(name, 0, fallback, opts),
		logger: { ...logger, warn: (m: string) => warnings.push(m) },
		helpers: {
			returnJsonArray: (data: IDataObject | IDataObject[]) =>
				(Array.isArray(data) ? data : [data]).map((json) => ({ json })),
		},
	};
	return { context: context as unknown as IWebhookFunctions, response, answer, warnings };
}

/** `n` input items. */
export const inputItems = (n: number): INodeExecutionData[] => Array.from({ length: n }, (_, i) => ({ json: { i } }));

export interface PollOptions {
	params: Params;
	/** The node's static data; kept by the caller between polls, as n8n keeps it. */
	staticData?: IDataObject;
	mode?: 'manual' | 'trigger';
	credentials?: Credentials;
	/** Collects what the node logs (any level), as n8n's logger would write it. */
	logs?: string[];
}

/** IPollFunctions: parameters, credentials, n8n's HTTP helper, the mode and the node's static data. */
export function fakePoll(options: PollOptions) {
	const node = makeNode({ name: 'Certificate Service Poll Trigger', type: 'CUSTOM.certificateServicePollTrigger' });
	const { shared, requests, staticData, httpRequestWithAuthentication } = triggerContext(node, options);
	const context = {
		...shared,
		logger: options.logs ? recordingLogger(options.logs) : logger,
		helpers: {
			httpRequestWithAuthentication,
			returnJsonArray: (data: IDataObject | IDataObject[]) =>
				(Array.isArray(data) ? data : [data]).map((json) => ({ json })),
		},
	};
	return { context: context as unknown as IPollFunctions, requests, staticData };
}
