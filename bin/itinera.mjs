#!/usr/bin/env node
// Operator commands (npx itinera --help), run from the compiled build in dist/, the same code `npm start` runs.
// Without a build this says so rather than building: a production install may have no compiler (typescript is
// a development dependency), and an operator command rewriting dist/ under running services would surprise.
// (The tests run the sources with tsx: node --import tsx services/cli/main.ts.)
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/services/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    `itinera: no build at ${fileURLToPath(main)}; run \`npm run build\` (or \`npm start\`, which builds) first\n`,
  );
  process.exit(1);
}
await import(main.href);
