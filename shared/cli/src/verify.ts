import { checkDelivery, UsageError } from '@certificate-service/sdk';
import type { Run } from './command';

export interface VerifyFlags {
  secret?: string[];
  signature?: string;
  timestamp?: string;
  tolerance?: string;
}

/**
 * `certsvc verify`: checks a delivery body read from stdin against its headers (given as flags),
 * the way a receiver would. Prints `{ok, …}` and returns 0 when it verifies, 1 when not.
 */
export const runVerify: Run<VerifyFlags> = async (flags, { io: { stdin, stdout, env } }) => {
  const secrets = flags.secret?.length ? flags.secret : env.CERTSVC_WEBHOOK_SECRET ? [env.CERTSVC_WEBHOOK_SECRET] : [];
  if (secrets.length === 0) throw new UsageError('No signing secret: pass --secret <wh_sec_…> (or set CERTSVC_WEBHOOK_SECRET).');
  if (stdin.isTTY) throw new UsageError('Pipe the delivery body in, exactly as received: certsvc verify --secret … --signature "t=…,v1=…" < delivery.json');
  const tolerance = flags.tolerance === undefined ? undefined : Number(flags.tolerance);
  if (tolerance !== undefined && !(Number.isInteger(tolerance) && tolerance >= 0)) throw new UsageError('--tolerance takes whole seconds, e.g. --tolerance 86400 for a day-old delivery.');

  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk as Buffer);
  const headers = { 'X-Service-Signature': flags.signature, 'X-Service-Timestamp': flags.timestamp };
  // Empty stdin is a missing body (MISSING_BODY), not a body whose signature fails to match.
  const body = Buffer.concat(chunks);
  const result = checkDelivery(body.length ? body : '', headers, secrets, { toleranceSeconds: tolerance });
  stdout.write(`${JSON.stringify(result.ok ? { ok: true, timestamp: result.timestamp, event: result.event } : result, null, 2)}\n`);
  return result.ok ? 0 : 1;
};
