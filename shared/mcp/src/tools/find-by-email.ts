import { z } from 'zod/v4';
import { defineTool, READ_ONLY } from '../tool';
import { certificateOut, certificateView } from './views';

export default defineTool({
  name: 'find_certificate_by_email',
  title: 'Find a certificate by email',
  description:
    'The certificate of an email in one batch (any case); reads the batch, 1 request per 100. Ask which batch: there is no search across batches.',
  input: {
    batchId: z.string(),
    email: z.string(),
  },
  output: z.looseObject({ found: z.boolean(), certificate: certificateOut.optional() }),
  annotations: READ_ONLY,
  example: async (on) => {
    const { batchId, email } = await on.certificate();
    return { batchId, email };
  },
  async run({ batchId, email }, { client }) {
    const cert = await client.findRecipientByEmail(batchId, email);
    return { data: cert ? { found: true, certificate: certificateView(cert) } : { found: false } };
  },
});
