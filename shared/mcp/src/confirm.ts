// Confirmation for what cannot be undone (delete, archive, send, update, issue with send, a
// large issue). Two ways, chosen by what the client can do:
// - elicitation (the client declared the capability): the user is asked, in the client's own
//   UI, and only an explicit "accept" with the box ticked lets the call go on; a token never
//   skips that question;
// - otherwise a dry run: the answer says what would happen and carries a confirmation token
//   sealed by this server (HMAC) over the tool, its arguments, its targets, the service and an
//   expiry, good once, in any session or process. Calling again with the same arguments and
//   the token does it.
// The token guards against accidental calls; it is NOT the user's consent: the model can pass
// it back by itself. Declined or unconfirmed: no write request is made.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { privatePath, stateDir, validationError } from '@certificate-service/sdk';
import fs from 'node:fs';
import path from 'node:path';
import type { ToolAnswer } from './tool';

/** How long a dry run's token stays good (the issue allows at most 10 minutes). */
export const CONFIRMATION_TTL_MS = 5 * 60_000;

export interface ConfirmRequest {
  tool: string;
  /** The call's arguments (the token, if any, is left out of the hash). */
  args: Record<string, unknown>;
  /** The ids the call acts on, as read from the service (a certificate's batch and id, a batch, a subscription). */
  target: ReadonlyArray<string>;
  /** One sentence: what will happen if confirmed. */
  action: string;
  /** What the dry run found (counts, the certificate, the batch), shown with the token. */
  preview?: Record<string, unknown>;
}

/** `go`: do it. Otherwise `answer` is what the tool returns instead, with nothing written. */
export type ConfirmResult = { go: true; via: 'elicitation' | 'token' } | { go: false; answer: ToolAnswer };
export type Confirm = (request: ConfirmRequest) => Promise<ConfirmResult>;

/** JSON with object keys sorted, so equal arguments hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function argumentsHash(args: Record<string, unknown>): string {
  const { confirmationToken: _token, ...rest } = args;
  return createHash('sha256').update(canonical(rest)).digest('base64url');
}

/** Which service a call goes to: its base URL and a fingerprint of its key (never the key). */
export function serviceIdentity(baseUrl: string | undefined, apiKey: string | undefined): string {
  return `${(baseUrl ?? '').replace(/\/+$/, '')}#${createHash('sha256').update(apiKey ?? '').digest('base64url').slice(0, 16)}`;
}

/** Where the key and the memory of used tokens live: <state dir>/mcp/confirmations. */
export const confirmationsDir = (env: NodeJS.ProcessEnv = process.env): string => path.join(stateDir(env), 'mcp', 'confirmations');

export type RedeemProblem = 'forged' | 'tool' | 'service' | 'target' | 'arguments' | 'expired' | 'used' | 'unrecorded';

/** What a token is bound to. */
export interface Binding {
  tool: string;
  args: Record<string, unknown>;
  target: ReadonlyArray<string>;
  service: string;
}

const KEY_FILE = 'key';
const USED_DIR = 'used';
const PART = /^[A-Za-z0-9_-]+$/;

/**
 * Issues and redeems confirmation tokens: `ct2.<tool>.<args>.<target>.<service>.<expiry>.<nonce>.<mac>`.
 * args, target and service are short keyed digests (only this server can make or check them),
 * the MAC an HMAC-SHA256 under the key over all the rest. The key lives in `dir` beside `used/`,
 * the memory of redeemed tokens (one file per token, created exclusively, so two processes
 * racing for one token cannot both win). When either is missing or unreadable a new key is
 * made: older tokens then fail instead of being replayed. The folder, `used/` and the key are
 * checked each time (privatePath): a key another user planted would confirm their tokens, and a
 * `used/` they can change would let a token be replayed, so either is refused and no token is
 * made or accepted.
 */
export class ConfirmationTokens {
  constructor(
    readonly dir: string = confirmationsDir(),
    readonly ttlMs = CONFIRMATION_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key, read each time (another process may have renewed it); a new one when the key or the memory is gone. */
  #key(): Buffer {
    const keyFile = path.join(this.dir, KEY_FILE);
    const usedDir = path.join(this.dir, USED_DIR);
    // Throws, naming the path and the fix, when another user could have made or could change them.
    privatePath(this.dir, 'folder');
    const memory = privatePath(usedDir, 'folder', { create: false });
    if (memory && privatePath(keyFile, 'secret')) {
      try {
        const fd = fs.openSync(keyFile, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
        try {
          const key = Buffer.from(fs.readFileSync(fd, 'utf8').trim(), 'hex');
          if (key.length === 32) return key;
        } finally {
          fs.closeSync(fd);
        }
      } catch {
        // unreadable: a new key below
      }
    }
    const key = randomBytes(32);
    privatePath(usedDir, 'folder');
    try {
      const temporary = `${keyFile}.${process.pid}.${randomBytes(4).toString('hex')}`;
      fs.writeFileSync(temporary, key.toString('hex'), { flag: 'wx', mode: 0o600 });
      fs.renameSync(temporary, keyFile); // whole or not at all, even with a reader beside it
    } catch (error) {
      // No token without a place to remember it: nothing is confirmed, and the answer says where.
      throw validationError('CERTSVC_STATE_DIR', `confirmation tokens are kept in ${this.dir}, which cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'}); set CERTSVC_STATE_DIR to a writable folder`);
    }
    return key;
  }

  #digest(key: Buffer, label: string, value: string): string {
    return createHmac('sha256', key).update(`${label}\n${value}`).digest('base64url').slice(0, 16);
  }

  #parts(key: Buffer, b: Binding): [string, string, string, string] {
    return [b.tool, this.#digest(key, 'args', argumentsHash(b.args)), this.#digest(key, 'target', canonical(b.target)), this.#digest(key, 'service', b.service)];
  }

  #mac(key: Buffer, parts: string[]): string {
    return createHmac('sha256', key).update(parts.join('.')).digest('base64url');
  }

  issue(binding: Binding): { token: string; expiresAt: string } {
    const key = this.#key();
    const expiry = (this.now() + this.ttlMs).toString(36);
    const parts = ['ct2', ...this.#parts(key, binding), expiry, randomBytes(12).toString('base64url')];
    return { token: `${parts.join('.')}.${this.#mac(key, parts)}`, expiresAt: new Date(parseInt(expiry, 36)).toISOString() };
  }

  /** Undefined when the token is good for this call (it is then spent, for every process), else why not. */
  redeem(token: string, binding: Binding): RedeemProblem | undefined {
    const parts = token.split('.');
    if (parts.length !== 8 || parts[0] !== 'ct2' || !parts.every((p) => PART.test(p))) return 'forged';
    const key = this.#key();
    const expected = Buffer.from(this.#mac(key, parts.slice(0, 7)));
    const given = Buffer.from(parts[7]);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'forged';
    const [, tool, args, target, service, expiry, nonce] = parts;
    const want = this.#parts(key, binding);
    if (tool !== want[0]) return 'tool';
    if (service !== want[3]) return 'service';
    if (target !== want[2]) return 'target';
    if (args !== want[1]) return 'arguments';
    const now = this.now();
    if (!(parseInt(expiry, 36) >= now)) return 'expired';
    this.#forgetExpired(now);
    try {
      fs.closeSync(fs.openSync(path.join(this.dir, USED_DIR, `${expiry}.${nonce}`), 'wx', 0o600));
      return undefined;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'used' : 'unrecorded';
    }
  }

  /** Used tokens past their expiry cannot be replayed anyway: their files go. */
  #forgetExpired(now: number): void {
    try {
      for (const name of fs.readdirSync(path.join(this.dir, USED_DIR))) {
        if (parseInt(name.split('.')[0], 36) < now) fs.rmSync(path.join(this.dir, USED_DIR, name), { force: true });
      }
    } catch {
      // best effort: the exclusive create below decides
    }
  }
}

const PROBLEMS: Record<RedeemProblem, string> = {
  forged: 'The confirmationToken is not one this server made: altered, made up, or made before its key was renewed.',
  tool: 'The confirmationToken was made for another tool.',
  service: 'The confirmationToken was made for another service (another base URL or API key).',
  target: 'The confirmationToken was made for another target: what it would act on has changed.',
  arguments: 'The confirmationToken was made for other arguments: they must be exactly those of the dry run.',
  expired: 'The confirmationToken has expired.',
  used: 'The confirmationToken was already used; each token confirms one call.',
  unrecorded: 'The confirmationToken could not be recorded as used (the state folder is not writable), so it was not accepted.',
};

export interface ConfirmDependencies {
  tokens: ConfirmationTokens;
  /** serviceIdentity() of the service the calls go to. */
  service: string;
  /** Undefined when the client cannot be asked (no elicitation capability). */
  elicit?: (message: string) => Promise<'accept' | 'decline' | 'cancel'>;
  /**
   * A 2026-07-28 client that can be asked: there is no server-sent question, so the first
   * round ends in AskFirst (an input-required result) and the call comes back with the
   * user's answer and the state, which is a sealed token over this call.
   */
  round?: { state?: string; answer?: 'accept' | 'decline' | 'cancel' };
}

/** Thrown by the confirmation step to end the first round of a 2026-07-28 call with a question. */
export class AskFirst extends Error {
  constructor(readonly question: string, readonly state: string) {
    super('The user must be asked first.');
  }
}

const notConfirmed = (answer: 'decline' | 'cancel', action: string): ConfirmResult => ({
  go: false,
  answer: { data: { done: false, reason: answer === 'decline' ? 'declined' : 'cancelled', action, note: 'The user did not confirm; nothing was changed and no write request was made.' } },
});

/** The confirmation step for one tool call. */
export function confirmer({ tokens, service, elicit, round }: ConfirmDependencies): Confirm {
  return async (request) => {
    const question = `${request.action}\n\nThis cannot be undone. Go ahead?`;
    if (elicit) {
      const answer = await elicit(question);
      return answer === 'accept' ? { go: true, via: 'elicitation' } : notConfirmed(answer, request.action);
    }
    const binding: Binding = { tool: request.tool, args: request.args, target: request.target, service };
    if (round) {
      if (round.state === undefined || round.answer === undefined) throw new AskFirst(question, tokens.issue(binding).token);
      if (round.answer !== 'accept') return notConfirmed(round.answer, request.action);
      // Yes, for this very call (the state is the sealed, single-use token of the first round).
      const problem = tokens.redeem(round.state, binding);
      if (!problem) return { go: true, via: 'elicitation' };
      return { go: false, answer: { data: { done: false, reason: 'confirmationRefused', tokenProblem: problem, tokenProblemMessage: PROBLEMS[problem].replace('confirmationToken', 'requestState'), action: request.action, note: 'Nothing was changed. Call again without requestState to be asked anew.' } } };
    }
    const given = request.args.confirmationToken;
    let problem: RedeemProblem | undefined;
    if (typeof given === 'string' && given) {
      problem = tokens.redeem(given, binding);
      if (!problem) return { go: true, via: 'token' };
    }
    const { token, expiresAt } = tokens.issue(binding);
    return {
      go: false,
      answer: {
        data: {
          done: false,
          reason: 'confirmationRequired',
          ...(problem ? { tokenProblem: problem, tokenProblemMessage: PROBLEMS[problem] } : {}),
          action: request.action,
          ...(request.preview ? { preview: request.preview } : {}),
          confirmationToken: token,
          expiresAt,
          next: `Nothing was changed. Ask the user; only if they agree, call ${request.tool} again with the same arguments plus this confirmationToken (once, until ${expiresAt}).`,
        },
      },
    };
  };
}
