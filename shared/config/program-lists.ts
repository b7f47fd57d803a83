import { ConfigError } from '../errors/index.js';
import { TOKEN_PART } from '../ids/token-part.js';

/** Lists per program (program name → e-mails or groups). */
export type ProgramLists = Readonly<Record<string, readonly string[]>>;

/**
 * Program → list, from a conf file's object or the environment's JSON text (e-mails and groups, which can hold
 * commas, as Active Directory names do, are not split on separators).
 */
export function asProgramLists(name: string, value: unknown): ProgramLists {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ConfigError(`${name} must be a JSON object of program → list, such as {"study-a":["a@example.org"]}`);
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError(`${name} must map each program to a list, such as {"study-a":["a@example.org"]}`);
  const lists: Record<string, string[]> = {};
  for (const [program, list] of Object.entries(parsed)) {
    // Checked so that a typo does not silently admit nobody.
    if (!TOKEN_PART.test(program))
      throw new ConfigError(`${name}: "${program}" is not a program name (letters, digits and "-", at most 64)`);
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string'))
      throw new ConfigError(`${name}: the program ${program} must map to a list of strings`);
    lists[program] = list.map((item) => item.trim()).filter(Boolean);
  }
  return lists;
}
