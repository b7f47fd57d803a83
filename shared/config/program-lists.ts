import { z } from 'zod';
import { TOKEN_PART } from '../ids/token-part.js';
import { jsonObject, type ValueType } from './value-types.js';

/** Lists per program (program name → e-mails or groups). */
export type ProgramLists = Readonly<Record<string, readonly string[]>>;

const EXAMPLE = '{"study-a":["a@example.org"]}';

/** The path of an issue in a program's list starts with the program's name. */
const notAList = (issue: { path?: PropertyKey[] }) =>
  `the program ${String(issue.path?.[0])} must map to a list of strings`;

/**
 * Program → list. E-mails and groups can hold commas, as Active Directory names do, so the environment gives the
 * same JSON object a file holds rather than a separated string.
 */
export const programLists: ValueType<ProgramLists> = jsonObject(
  'a JSON object of program → list',
  z.record(
    // Checked so that a typo does not silently admit nobody.
    z.string().regex(TOKEN_PART, {
      error: (issue) => `"${String(issue.input)}" is not a program name (letters, digits and "-", at most 64)`,
    }),
    z
      .array(z.string({ error: notAList }), { error: notAList })
      .transform((list) => list.map((item) => item.trim()).filter(Boolean)),
    {
      error: (issue) =>
        typeof issue.input === 'string'
          ? `must be a JSON object of program → list, such as ${EXAMPLE}`
          : `must map each program to a list, such as ${EXAMPLE}`,
    },
  ),
);
