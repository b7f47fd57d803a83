/**
 * Reads the JSON conf files and holds them to the declaration: a key no one declared is a typo or a setting that
 * does nothing, so it stops start-up, as does a section that is not an object.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
import type { ConfKey } from './config-declaration.js';
import { CONF_FILES, type ConfFile } from './conf-files.js';

/** The conf files of one folder, as read. */
export interface ConfFiles {
  /** Where a file is, for messages. */
  pathOf(file: ConfFile): string;
  /** The value at a key's path, `undefined` when the file or the key is absent. */
  valueOf(key: ConfKey<unknown>): unknown;
}

interface Shape {
  [name: string]: Shape | null;
}

/** The sections and keys a file may hold: `null` marks a key, an object a section. */
function shapeOf(paths: readonly string[]): Shape {
  const shape: Shape = {};
  for (const path of paths) {
    const parts = path.split('.');
    let section = shape;
    for (const part of parts.slice(0, -1)) section = section[part] ??= {};
    section[parts.at(-1)!] = null;
  }
  return shape;
}

/** Strict at every level; a key's value is checked by its own type later, where its environment variable is known. */
const schemaOf = (shape: Shape): z.ZodType =>
  z.strictObject(
    Object.fromEntries(
      Object.entries(shape).map(([name, child]) => [
        name,
        child === null ? z.unknown().optional() : schemaOf(child).optional(),
      ]),
    ),
  );

function describe(path: string, issue: z.core.$ZodIssue): string {
  const at = issue.path.join('.');
  if (issue.code === 'unrecognized_keys')
    return issue.keys
      .map(
        (name) => `${path}: unknown key ${at === '' ? name : `${at}.${name}`} (docs/configuration.md lists the keys)`,
      )
      .join('\n');
  return at === '' ? `${path} must hold a JSON object` : `${path}: ${at} must be an object of keys`;
}

function readJson(path: string): unknown {
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new ConfigError(`${path} is not valid JSON`, { cause });
  }
}

export function readConfFiles(confDir: string, keys: readonly ConfKey<unknown>[]): ConfFiles {
  const pathOf = (file: ConfFile) => join(confDir, file);
  const contents = new Map<ConfFile, unknown>();
  for (const file of Object.keys(CONF_FILES) as ConfFile[]) {
    const path = pathOf(file);
    const json = readJson(path);
    const schema = schemaOf(shapeOf(keys.filter((k) => k.file === file).map((k) => k.path)));
    const checked = schema.safeParse(json);
    if (!checked.success)
      throw new ConfigError(checked.error.issues.map((issue) => describe(path, issue)).join('\n'), {
        details: { file: path },
      });
    contents.set(file, json);
  }
  return {
    pathOf,
    valueOf: (key) =>
      key.path
        .split('.')
        .reduce<unknown>(
          (value, part) => (value as Record<string, unknown> | undefined)?.[part],
          contents.get(key.file),
        ),
  };
}
