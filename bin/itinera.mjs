#!/usr/bin/env node
// Operator commands (npx itinera --help). Runs the TypeScript sources through tsx; no build step.
import { register } from 'tsx/esm/api';

register();
await import('../services/cli/main.ts');
