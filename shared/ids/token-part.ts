/**
 * A program's or a subgroup's name, as OpenPATH tokens spell it (`nrelop_<program>_<subgroup>[_test]_<random>`):
 * the phone and e-mission's server read the parts back by splitting on `_`, so a name never holds one.
 */
export const TOKEN_PART = /^[A-Za-z0-9-]{1,64}$/;

/** What TOKEN_PART allows, for refusals. */
export const TOKEN_PART_RULE = 'letters, digits and "-" only, at most 64 (tokens are split on "_")';
