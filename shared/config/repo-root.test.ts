import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runsFromSources, serviceNodeArgs } from './repo-root.js';

describe('repoRoot', () => {
  it("is the repository's root, with conf/ and schemas/", () => {
    expect(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).name).toBe('itinera');
    expect(existsSync(join(repoRoot, 'conf'))).toBe(true);
    expect(existsSync(join(repoRoot, 'schemas', 'cql'))).toBe(true);
  });

  it('runs a service from its source through tsx when this runs from the sources', () => {
    expect(runsFromSources).toBe(true);
    const args = serviceNodeArgs('converter', '0');
    expect(args).toEqual(['--import', 'tsx', join(repoRoot, 'services', 'converter', 'main.ts'), '0']);
    expect(existsSync(args[2] ?? '')).toBe(true);
  });
});
