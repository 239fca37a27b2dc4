// The planted-secret fuzz's bodies (fast-check): text and JSON in which the secrets under test
// turn up anywhere, whole or inside other text, for the properties that no secret is echoed.
import fc from 'fast-check';

/**
 * `text`: any string, a planted one, or one inside random text. `json`: any JSON value whose
 * strings are such text, with objects keyed by `keys` (the names a reader looks for) or by text.
 */
export function plantedBodies(planted: string[], keys: string[], maxLength: number) {
  const secret = fc.constantFrom(...planted);
  const text = fc.oneof(fc.string(), secret, fc.tuple(fc.string(), secret, fc.string()).map((p) => p.join('')));
  const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength }),
    object: fc.dictionary(fc.oneof(fc.constantFrom(...keys), text), tie('value'), { maxKeys: 5 }),
  })).value;
  return { text, json };
}
