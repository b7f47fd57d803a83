/**
 * A key's value: its environment variable when set and not empty, else its conf file's, else its default. A file's
 * value is checked even when the environment overrides it, so a wrong file never waits for the day it is used.
 */
import { ConfigError } from '../errors/index.js';
import { declaredKeys, isComputed, isGroup, isKey, type ConfKey, type Declaration } from './config-declaration.js';
import { readConfFiles, type ConfFiles } from './read-conf-files.js';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A refusal names where the value was written: the variable, or the file and the key in it. It says what the key
 * expects, unless its type explains which part of the value is wrong (one program of a map), and quotes the value
 * unless it is a secret.
 */
function checked(key: ConfKey<unknown>, value: unknown, where: string, shown: string): unknown {
  const expected = `must be ${key.type.expects}, got ${key.secret ? '(not shown: a secret)' : shown}`;
  const result = key.type.schema.safeParse(value, { error: () => expected });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const part = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  const aboutWhole = part === expected || issue.path.length === 0;
  throw new ConfigError(aboutWhole ? `${where} ${part}` : `${where}: ${part}`, {
    details: { key: key.path, file: key.file, env: key.env },
  });
}

function valueOf(key: ConfKey<unknown>, env: Env, files: ConfFiles, section: Record<string, unknown>): unknown {
  const written = files.valueOf(key);
  const fromFile =
    written === undefined
      ? undefined
      : checked(key, written, `${files.pathOf(key.file)}: ${key.path}`, JSON.stringify(written));
  const text = key.env === undefined ? undefined : env[key.env];
  const value =
    text !== undefined && text !== ''
      ? checked(key, key.type.fromText(text), key.env!, text)
      : (fromFile ?? (isComputed(key.default) ? key.default.computed(section) : key.default));
  return typeof value === 'number' ? value * key.scale : value;
}

function build(declaration: Declaration, env: Env, files: ConfFiles): unknown {
  if (isGroup(declaration)) {
    const values = Object.fromEntries(
      Object.entries(declaration.keys).map(([name, key]) => [name, valueOf(key, env, files, {})]),
    );
    return declaration.combine(values, declaration.keys);
  }
  // In declaration order, so that a computed default sees the keys declared before it.
  const section: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(declaration))
    section[name] = isKey(child) ? valueOf(child, env, files, section) : build(child, env, files);
  return section;
}

/** The values of every key of `declaration`, in its shape, from the conf files of `confDir` and `env`. */
export function resolveKeys(declaration: Declaration, env: Env, confDir: string): unknown {
  const keys = declaredKeys(declaration).map(({ key }) => key);
  return build(declaration, env, readConfFiles(confDir, keys));
}
