// `certsvc doctor`: the first-contact check. Read-only calls to every list and lookup the
// connectors use, and for each: the status, the RateLimit-* headers, the list wrapper and cursor
// field recognised, and whether every field the connectors read is there. Exit 1 on any answer
// the core cannot read (naming the keys it saw) or any field missing; run it before a release
// against the live service, or when the service announces a new API version. The checks are the
// SDK's (checkFirstContact, shared with the MCP server's doctor tool); this file words them.
import { checkFirstContact, observeAnswer, type ObservedAnswer } from '@certificate-service/sdk';
import type { Run } from './command';

export { FIELDS_READ } from '@certificate-service/sdk';

/** Runs the checks; writes one block per endpoint to stdout. Exit 1 when one failed. */
export const runDoctor: Run<unknown> = async (_flags, { connection, io }) => {
  const out = io.stdout;
  let last: ObservedAnswer | undefined;
  connection.observe((_request, response) => (last = observeAnswer(response)));
  const { client } = connection;
  const checks = await checkFirstContact(client, () => last, () => (last = undefined));
  for (const check of checks) {
    const head = check.answer ? `${check.answer.status}  RateLimit ${check.answer.rateLimit}` : 'no answer';
    out.write(`${check.endpoint}  ${head}\n${check.lines.map((l) => `  ${l}\n`).join('')}`);
  }
  const failed = checks.filter((c) => c.failed).length;
  out.write(failed ? `\n${failed} check${failed > 1 ? 's' : ''} failed: the connectors cannot rely on these answers.\n` : '\nEvery answer has a shape the connectors read.\n');
  return failed ? 1 : 0;
};
