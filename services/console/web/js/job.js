/** A long-running server job (replay, reset): a progress bar and its log lines, polled every second until it ends. */
import { ApiError, get } from './api.js';
import { h, int } from './dom.js';

function render(panel, job) {
  const progress = panel.querySelector('[data-testid="job-progress"]');
  progress.dataset.state = job.state;
  progress.dataset.done = String(job.done);
  progress.dataset.total = job.total === null ? '' : String(job.total);
  if (job.total === null || job.total === 0) {
    if (job.state === 'running') progress.removeAttribute('value');
    else progress.value = progress.max = 1;
  } else {
    progress.max = job.total;
    progress.value = job.done;
  }
  panel.dataset.state = job.state;
  const of = job.total === null ? '' : ` of ${int(job.total)}`;
  panel.querySelector('.job-status').textContent = `${job.kind} ${job.jobId}: ${job.state} · ${int(job.done)}${of}`;
  panel.querySelector('.job-status').className = `job-status ${job.state === 'failed' ? 'bad' : ''}`;
  const lines = panel.querySelector('[data-testid="job-lines"]');
  lines.textContent = job.lines.join('\n');
  lines.scrollTop = lines.scrollHeight;
}

/**
 * Shows `job` in `panel` and follows it; resolves with the job once it is done or failed. A network hiccup or a
 * 5xx while polling is retried; a 4xx (the job is unknown, the session lost its rights) stops following.
 */
export async function followJob(panel, job) {
  panel.hidden = false;
  panel.classList.add('job');
  panel.replaceChildren(
    h('h2', {}, 'Job'),
    h('p', { class: 'job-status', 'aria-live': 'polite' }),
    h('progress', { 'data-testid': 'job-progress', 'aria-label': 'Job progress' }),
    h('pre', { 'data-testid': 'job-lines', 'aria-label': 'Job log' }),
  );
  render(panel, job);
  let current = job;
  while (current.state === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    try {
      current = await get(`jobs/${encodeURIComponent(job.jobId)}`);
      render(panel, current);
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) return current;
    }
  }
  return current;
}
