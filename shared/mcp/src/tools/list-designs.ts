import { defineTool, READ_ONLY } from '../tool';

export default defineTool({
  name: 'list_designs',
  title: 'List certificate designs',
  description:
    'Lists the workspace\'s certificate designs (id, name); a batch is created with one. Designs are read-only here. ' +
    'Costs 1 request per 100 designs and no quota. get_batch tells which variables a batch\'s design asks for.',
  input: {},
  annotations: READ_ONLY,
  async run(_args, { client }) {
    const designs: Array<{ id: string; name?: string }> = [];
    for await (const d of client.iterateDesigns()) designs.push({ id: d.id, ...(typeof d.name === 'string' ? { name: d.name } : {}) });
    return { data: { designs } };
  },
});
