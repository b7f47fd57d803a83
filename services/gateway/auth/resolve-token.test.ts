import { describe, expect, it } from 'vitest';
import type { Config } from '../../../shared/config/index.js';
import { ValidationError } from '../../../shared/errors/index.js';
import { verifyToken } from './resolve-token.js';

const skip = { auth: 'skip' } as Config['webserver'];

describe('verifyToken', () => {
  it('When a token is printable, then in skip mode it is the user name', () => {
    expect(verifyToken({ user: 'nrelop_study_default_4j7sd9' }, skip)).toBe('nrelop_study_default_4j7sd9');
    expect(verifyToken({ user: 'zoë@example.org' }, skip)).toBe('zoë@example.org');
  });

  it.each([
    ['a line feed', 'a\nb'],
    ['a zero-width joiner', 'a\u200db'],
    ['a line separator', 'a\u2028b'],
    ['a paragraph separator', 'a\u2029b'],
  ])('When a token holds %s, then it is refused with a 400 naming the field', (_, token) => {
    expect(() => verifyToken({ user: token }, skip)).toThrow(ValidationError);
  });
});
