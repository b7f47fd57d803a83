import { describe, expect, it } from 'vitest';
import { escapeForLog, startLine, webLogLine, webLogLines } from './spec-log-format.js';

describe('escapeForLog', () => {
  it('When a value carries a line break, then the line stays one line and shows the break as an escape', () => {
    const forged = 'alice\n2026-11-23 10:00:00,000:INFO:1:retUUID = admin';
    const line = webLogLine(0, 'debug', 1, `user_email = ${forged}`);
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('alice\\x0a2026');
  });

  it('escapes every C0/C1 control, DEL and the Unicode line separators, and leaves other text alone', () => {
    expect(escapeForLog('a\r\tb\u0000\u007f\u0085\u2028ユーザー😀')).toBe(
      'a\\x0d\\x09b\\x00\\x7f\\x85\\u2028ユーザー😀',
    );
    expect(startLine(0, 'POST', '/a\nb')).not.toContain('\n');
  });
});

describe('webLogLines', () => {
  it('When several messages are logged at once, then each is a line of its own with the prefix, escaped alone', () => {
    const text = webLogLines(0, 'debug', 7, ['first', 'second\nforged']);
    const lines = text.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(webLogLine(0, 'debug', 7, 'first'));
    expect(lines[1]).toBe(webLogLine(0, 'debug', 7, 'second\nforged'));
  });
});
