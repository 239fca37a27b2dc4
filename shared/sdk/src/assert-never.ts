/**
 * The `default:` of a switch over a closed union (an outcome's `kind`, a delivery's `outcome`…):
 * with every case handled, `value` is `never` and this type-checks; a member added to the union
 * and forgotten in a switch fails `npm run typecheck` there. At run time (a value the types did
 * not foresee, e.g. from an older build) it throws, naming the discriminant that came and never
 * the rest of the value (an outcome carries recipients' data).
 */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${describe(value)}. This code handles every case its types know; update it for this one.`);
}

function describe(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value);
  for (const key of ['kind', 'type', 'outcome']) {
    const tag = (value as Record<string, unknown>)[key];
    if (typeof tag === 'string') return `${key} ${JSON.stringify(tag)}`;
  }
  return `an object with no kind, type or outcome (keys: ${Object.keys(value).slice(0, 5).join(', ') || 'none'})`;
}
