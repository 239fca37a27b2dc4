// Confirmation for what cannot be undone (delete, archive, send, update, issue with send, a
// large issue). Two ways, chosen by what the client can do:
// - elicitation (the client declared the capability): the user is asked, in the client's own
//   UI, and only an explicit "accept" with the box ticked lets the call go on;
// - otherwise a dry run: the answer says what would happen and carries a confirmation token,
//   bound to the tool, a hash of its arguments, the session and a short expiry, usable once.
//   Calling again with the same arguments and the token does it.
// The token guards against accidental calls; it is NOT the user's consent: the model can pass
// it back by itself. Declined or unconfirmed: no write request is made.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ToolAnswer } from './tool';

export const CONFIRMATION_TTL_MS = 5 * 60_000;

export interface ConfirmRequest {
  tool: string;
  /** The call's arguments (the token, if any, is left out of the hash). */
  args: Record<string, unknown>;
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

export type RedeemProblem = 'malformed' | 'expired' | 'used' | 'mismatch';

/**
 * Issues and redeems confirmation tokens: `ct1.<expiry>.<nonce>.<mac>`, the MAC an HMAC-SHA256
 * (a key made at start and never shown) over tool, session, arguments hash, expiry and nonce.
 * Redeemed nonces are remembered until they expire, so a token works once.
 */
export class ConfirmationTokens {
  readonly #key: Buffer;
  readonly #used = new Map<string, number>();

  constructor(
    readonly ttlMs = CONFIRMATION_TTL_MS,
    private readonly now: () => number = Date.now,
    key: Buffer = randomBytes(32),
  ) {
    this.#key = key;
  }

  #mac(tool: string, session: string, hash: string, expiry: string, nonce: string): Buffer {
    return createHmac('sha256', this.#key).update([tool, session, hash, expiry, nonce].join('\n')).digest();
  }

  issue(tool: string, session: string, args: Record<string, unknown>): { token: string; expiresAt: string } {
    const expiry = (this.now() + this.ttlMs).toString(36);
    const nonce = randomBytes(12).toString('base64url');
    const mac = this.#mac(tool, session, argumentsHash(args), expiry, nonce).toString('base64url');
    return { token: `ct1.${expiry}.${nonce}.${mac}`, expiresAt: new Date(parseInt(expiry, 36)).toISOString() };
  }

  /** Undefined when the token is good for this call (it is then spent), else why not. */
  redeem(token: string, tool: string, session: string, args: Record<string, unknown>): RedeemProblem | undefined {
    const parts = token.split('.');
    if (parts.length !== 4 || parts[0] !== 'ct1') return 'malformed';
    const [, expiry, nonce, mac] = parts;
    const expected = this.#mac(tool, session, argumentsHash(args), expiry, nonce);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'mismatch';
    const expiresAt = parseInt(expiry, 36);
    const now = this.now();
    for (const [n, at] of this.#used) if (at < now) this.#used.delete(n);
    if (!(expiresAt >= now)) return 'expired';
    if (this.#used.has(nonce)) return 'used';
    this.#used.set(nonce, expiresAt);
    return undefined;
  }
}

const PROBLEMS: Record<RedeemProblem, string> = {
  malformed: 'The confirmationToken is not one this server made.',
  mismatch: 'The confirmationToken was made for other arguments, another tool or another session: the arguments must be exactly those of the dry run.',
  expired: 'The confirmationToken has expired.',
  used: 'The confirmationToken was already used; each token confirms one call.',
};

export interface ConfirmDependencies {
  tokens: ConfirmationTokens;
  session: string;
  /** Undefined when the client cannot be asked (no elicitation capability). */
  elicit?: (message: string) => Promise<'accept' | 'decline' | 'cancel'>;
}

/** The confirmation step for one tool call. */
export function confirmer({ tokens, session, elicit }: ConfirmDependencies): Confirm {
  return async (request) => {
    if (elicit) {
      const answer = await elicit(`${request.action}\n\nThis cannot be undone. Go ahead?`);
      if (answer === 'accept') return { go: true, via: 'elicitation' };
      return {
        go: false,
        answer: { data: { done: false, reason: answer === 'decline' ? 'declined' : 'cancelled', action: request.action, note: 'The user did not confirm; nothing was changed and no write request was made.' } },
      };
    }
    const given = request.args.confirmationToken;
    let problem: string | undefined;
    if (typeof given === 'string' && given) {
      const why = tokens.redeem(given, request.tool, session, request.args);
      if (!why) return { go: true, via: 'token' };
      problem = PROBLEMS[why];
    }
    const { token, expiresAt } = tokens.issue(request.tool, session, request.args);
    return {
      go: false,
      answer: {
        data: {
          done: false,
          reason: 'confirmationRequired',
          ...(problem ? { tokenProblem: problem } : {}),
          action: request.action,
          ...(request.preview ? { preview: request.preview } : {}),
          confirmationToken: token,
          expiresAt,
          next: `Nothing was changed. Show the user what would happen and ask. Only if the user agrees, call ${request.tool} again with exactly the same arguments plus "confirmationToken". The token works once, for these arguments, until ${expiresAt}.`,
        },
      },
    };
  };
}
