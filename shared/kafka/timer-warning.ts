/**
 * kafkajs 2.2.4 schedules its request queue's check with `setTimeout(check, throttledUntil - Date.now())`, a large
 * negative delay whenever the broker has not throttled it (requestQueue/index.js, scheduleCheckPendingRequests). Node
 * has always run such a timer after 1 ms; since Node 23 it also prints a TimeoutNegativeWarning, once per process,
 * that reads like a fault to whoever reads the logs. The timer does what kafkajs meant, so that one warning is
 * dropped; every other warning reaches Node's own printer as before.
 */
let quieted = false;

export function quietKafkajsTimerWarning(): void {
  if (quieted) return;
  quieted = true;
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'TimeoutNegativeWarning') return;
    for (const print of printers) print.call(process, warning);
  });
}
