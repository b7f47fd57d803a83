/** `npm run docs:config`: writes docs/configuration.md from the declaration of every configuration key. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIGURATION_DOC, configurationDoc } from './configuration-doc.js';
import { repoRoot } from './repo-root.js';

writeFileSync(join(repoRoot, CONFIGURATION_DOC), configurationDoc());
console.log(`wrote ${CONFIGURATION_DOC}`);
