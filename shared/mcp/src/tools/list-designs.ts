import { z } from 'zod/v4';
import { object } from './views';
import { defineTool, READ_ONLY } from '../tool';

export default defineTool({
  name: 'list_designs',
  title: 'List certificate designs',
  description:
    'The certificate designs (id, name); a batch is created with one.',
  input: {},
  output: z.looseObject({ designs: z.array(object) }),
  annotations: READ_ONLY,
  example: async () => ({}),
  async run(_args, { client }) {
    const designs: Array<{ id: string; name?: string }> = [];
    for await (const d of client.iterateDesigns()) designs.push({ id: d.id, ...(typeof d.name === 'string' ? { name: d.name } : {}) });
    return { data: { designs } };
  },
});
