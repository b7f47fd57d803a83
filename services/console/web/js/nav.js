/** The top bar of every page: the pages, who is signed in (e-mail, role, programs) and a logout button. */
import { me, request } from './api.js';
import { h } from './dom.js';

const pages = [
  ['index.html', 'Participants'],
  ['radar.html', 'Radar'],
  ['pipeline.html', 'Pipeline'],
  ['dead-letters.html', 'Dead letters'],
  ['reset.html', 'Reset', 'operator-only'],
  ['summary.html', 'Summary'],
  ['tokens.html', 'Tokens'],
  ['programs.html', 'Programs'],
];

async function logout(event) {
  event.currentTarget.disabled = true;
  try {
    await request('POST', '/admin/logout');
  } finally {
    location.assign('/admin/login');
  }
}

/**
 * Draws the bar, marks the body with the role (CSS hides .operator-only for readers) and the scope (CSS hides
 * .deployment-only from a program's admin), and resolves with /me.
 */
export async function initNav() {
  const current = location.pathname.split('/').pop() || 'index.html';
  const email = h('span', { 'data-testid': 'nav-email' }, '…');
  const role = h('span', { class: 'role' });
  const scope = h('span', { class: 'muted', 'data-testid': 'nav-programs' });
  const bar = h(
    'header',
    { class: 'topbar' },
    h('span', { class: 'brand' }, 'Itinera console'),
    h(
      'nav',
      { 'aria-label': 'Console pages' },
      h(
        'ul',
        {},
        pages.map(([href, label, cls]) =>
          h('li', { class: cls }, h('a', { href, 'aria-current': href === current ? 'page' : null }, label)),
        ),
      ),
    ),
    h('div', { class: 'who' }, email, role, scope, h('button', { type: 'button', onclick: logout }, 'Log out')),
  );
  document.body.prepend(bar);

  const who = await me();
  email.textContent = who.email;
  role.textContent = who.role;
  role.classList.add(who.role);
  document.body.dataset.role = who.role;
  document.body.dataset.scope = who.programs === null ? 'deployment' : 'programs';
  if (who.programs !== null) scope.textContent = `programs: ${who.programs.join(', ')}`;
  return who;
}
