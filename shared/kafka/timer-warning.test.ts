import { afterEach, describe, expect, it } from 'vitest';
import { quietKafkajsTimerWarning } from './timer-warning.js';

const saved = process.listeners('warning');
afterEach(() => {
  process.removeAllListeners('warning');
  for (const l of saved) process.on('warning', l);
});

describe('kafkajs timer warning', () => {
  it('When a timer is set with a negative delay after the warning is quieted, then no warning reaches the printers; any other warning still does', () => {
    const printed: string[] = [];
    process.removeAllListeners('warning');
    process.on('warning', (w) => printed.push(w.name));
    quietKafkajsTimerWarning();

    process.emit('warning', Object.assign(new Error('-5 is a negative number'), { name: 'TimeoutNegativeWarning' }));
    process.emit('warning', Object.assign(new Error('old API'), { name: 'DeprecationWarning' }));

    expect(printed).toEqual(['DeprecationWarning']);
  });
});
