import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredKeys } from './config-declaration.js';
import { CONFIG_KEYS } from './config-keys.js';
import { CONF_FILES } from './conf-files.js';
import { CONFIGURATION_DOC, configurationDoc } from './configuration-doc.js';
import { repoRoot } from './repo-root.js';

describe('docs/configuration.md', () => {
  it('When the declaration changes, then the committed page is made again from it', () => {
    const committed = readFileSync(join(repoRoot, CONFIGURATION_DOC), 'utf8');
    expect(committed === configurationDoc(), `${CONFIGURATION_DOC} is stale: run \`npm run docs:config\``).toBe(true);
  });

  it('When the page is made, then every conf file has its section and every key and variable its row', () => {
    const page = configurationDoc();
    for (const file of Object.keys(CONF_FILES)) expect(page).toContain(`## \`conf/${file}\``);
    for (const { key } of declaredKeys(CONFIG_KEYS)) {
      expect(page).toContain(`| \`${key.path}\` | ${key.env === undefined ? '' : `\`${key.env}\``} |`);
    }
  });
});
