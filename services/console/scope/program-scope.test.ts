import { describe, expect, it } from 'vitest';
import { createParticipantScope } from './participant-scope.js';
import { describeScope, inScope, scopeCovers, scopeKey } from './program-scope.js';

describe('program scope', () => {
  it('When the scope is the whole deployment, then every program and the implicit one are in it; a list holds only its programs', () => {
    expect(inScope(undefined, 'a')).toBe(true);
    expect(inScope(undefined, null)).toBe(true);
    expect(inScope(['a', 'b'], 'b')).toBe(true);
    expect(inScope(['a', 'b'], 'c')).toBe(false);
    expect(inScope(['a'], null)).toBe(false);
    expect(inScope(['a'], undefined)).toBe(false);
  });

  it('When scopes are compared, then the whole deployment covers all, and a list covers its own subsets only', () => {
    expect(scopeCovers(undefined, ['a'])).toBe(true);
    expect(scopeCovers(['a', 'b'], ['b'])).toBe(true);
    expect(scopeCovers(['a'], ['a', 'b'])).toBe(false);
    expect(scopeCovers(['a'], undefined)).toBe(false);
    expect(scopeKey(['b', 'a'])).toBe(scopeKey(['a', 'b']));
    expect(scopeKey(undefined)).not.toBe(scopeKey([]));
    expect(describeScope(undefined)).toBe('all');
  });
});

describe('participant scope', () => {
  const indexed = new Map([
    ['u-a', { program: 'a' }],
    ['u-none', { program: null }],
  ]);
  const registered = new Map([['u-new-b', { program: 'b' }]]);
  const scope = createParticipantScope({
    indexed: (id) => indexed.get(id),
    lookup: async (id) => registered.get(id),
  });

  it('When a list is filtered for a program, then only indexed participants of its programs pass', () => {
    expect(scope.filter(undefined)).toBeUndefined();
    const onlyA = scope.filter(['a'])!;
    expect(['u-a', 'u-none', 'u-new-b', 'u-unknown'].filter(onlyA)).toEqual(['u-a']);
  });

  it('When one participant is asked for, then an unknown uuid and another program’s participant get the same 404', async () => {
    await expect(scope.assertVisible(['a'], 'u-a')).resolves.toBeUndefined();
    await expect(scope.assertVisible(['b'], 'u-new-b')).resolves.toBeUndefined();
    await expect(scope.assertVisible(undefined, 'u-none')).resolves.toBeUndefined();
    const refusals = await Promise.all(
      [
        ['a', 'u-new-b'],
        ['a', 'u-none'],
        ['a', 'u-unknown'],
      ].map(([program, id]) =>
        scope.assertVisible([program!], id!).then(
          () => undefined,
          (err: Error) => err,
        ),
      ),
    );
    expect(refusals.map((e) => [e?.constructor.name, e?.message.replace(/u-[\w-]+/, '<id>')])).toEqual([
      ['NotFoundError', 'no participant <id>'],
      ['NotFoundError', 'no participant <id>'],
      ['NotFoundError', 'no participant <id>'],
    ]);
    await expect(scope.assertVisible(undefined, 'u-unknown')).rejects.toThrow('no participant u-unknown');
  });
});
