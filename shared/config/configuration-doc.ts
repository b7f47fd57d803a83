/**
 * docs/configuration.md, made from the declaration (config-keys.ts) so that the page cannot tell another default,
 * variable or unit than the loader uses. `npm run docs:config` writes it; a test fails when the committed page is stale.
 */
import { declaredKeys, isComputed, type ConfKey } from './config-declaration.js';
import { CONFIG_KEYS } from './config-keys.js';
import { CONF_FILES, type ConfFile } from './conf-files.js';
import { CONF_DIR_VARIABLE } from './load-config.js';

export const CONFIGURATION_DOC = 'docs/configuration.md';

const code = (s: string) => `\`${s}\``;
/** A table cell: a pipe would end it, a line break would end the row. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function defaultOf(key: ConfKey<unknown>): string {
  const value = key.default;
  if (isComputed(value)) return code(value.doc);
  if (value === undefined) return 'none';
  if (value === '') return 'empty';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : code(value.join(','));
  if (typeof value === 'object')
    return Object.keys(value as object).length === 0 ? 'none' : code(JSON.stringify(value));
  return code(String(value));
}

function row(key: ConfKey<unknown>): string {
  const cells = [
    code(key.path),
    key.env === undefined ? '' : code(key.env),
    key.type.expects,
    defaultOf(key),
    key.unit ?? '',
    key.doc,
  ];
  return `| ${cells.map(cell).join(' | ')} |`;
}

function fileSection(file: ConfFile, keys: readonly ConfKey<unknown>[]): string[] {
  return [
    `## ${code(`conf/${file}`)}`,
    '',
    CONF_FILES[file],
    '',
    // The README's tables are kept from prettier the same way: it would pad every cell to the widest.
    '<!-- prettier-ignore -->',
    '| key | environment variable | type | default | unit | description |',
    '|---|---|---|---|---|---|',
    ...keys.map(row),
    '',
  ];
}

export function configurationDoc(): string {
  const keys = declaredKeys(CONFIG_KEYS).map(({ key }) => key);
  return [
    '# Configuration',
    '',
    '<!-- Generated from shared/config/config-keys.ts by `npm run docs:config`: edit the declaration, not this page. -->',
    '',
    `Every service reads the JSON files below from \`conf/\` (another folder: \`${CONF_DIR_VARIABLE}\`). A key's`,
    'environment variable, when set and not empty, wins over its file; a key set by neither has its default. A key that',
    'is not listed here, or a value of the wrong type, stops start-up with a message naming the key and the file (a number',
    'written in quotes is text, not a number). Lists are JSON arrays in the files and comma-separated in the environment.',
    '',
    ...(Object.keys(CONF_FILES) as ConfFile[]).flatMap((file) =>
      fileSection(
        file,
        keys.filter((k) => k.file === file),
      ),
    ),
  ].join('\n');
}
