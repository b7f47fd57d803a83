import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../shared/logger/index.js';
import { createJobRegistry } from './job-registry.js';

const quiet = { error: () => undefined } as unknown as Logger;
/** A job that runs until the test lets it end. */
function pending() {
  let end: (lines: string[]) => void = () => undefined;
  const work = () => new Promise<string[]>((resolve) => (end = resolve));
  return { work, end: (lines: string[] = []) => end(lines) };
}

describe('job registry', () => {
  it('When a reset runs in one scope, then another scope may start its own, and the same scope is refused (409)', () => {
    const jobs = createJobRegistry(quiet);
    jobs.start('reset', pending().work, ['a']);
    expect(() => jobs.start('reset', pending().work, ['b'])).not.toThrow();
    expect(() => jobs.start('reset', pending().work)).not.toThrow();
    expect(() => jobs.start('reset', pending().work, ['a'])).toThrow(/already running/);
    expect(() => jobs.start('reset', pending().work)).toThrow(/already running/);
  });

  it('When a job is polled, then its own scope and the whole deployment see it, another program’s admin gets a 404', () => {
    const jobs = createJobRegistry(quiet);
    const inA = jobs.start('replay', pending().work, ['a']);
    const whole = jobs.start('reset', pending().work);
    expect(jobs.get(inA.jobId, ['a', 'b']).kind).toBe('replay');
    expect(jobs.get(inA.jobId).kind).toBe('replay');
    expect(() => jobs.get(inA.jobId, ['b'])).toThrow(`no job ${inA.jobId}`);
    expect(() => jobs.get(whole.jobId, ['a'])).toThrow(`no job ${whole.jobId}`);
  });
});
