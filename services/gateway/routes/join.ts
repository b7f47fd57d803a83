import Router from '@koa/router';
import { NotFoundError } from '../../../shared/errors/index.js';
import type { GatewayState } from '../gateway-state.js';
import type { JoinTokens, ProgramGate } from '../stores.js';

/** Text safe inside HTML. */
function html(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
svg{width:16rem;height:16rem}code{word-break:break-all;background:#f3f3f3;padding:.2rem .4rem}
a.button{display:inline-block;margin:.3rem 0;padding:.5rem 1rem;background:#2b6cb0;color:#fff;border-radius:.3rem;text-decoration:none}</style>
</head><body><h1>${html(title)}</h1>${body}</body></html>`;
}

interface Intro {
  translated_text?: { en?: { deployment_name?: unknown } };
}

/**
 * `GET /join/<program>`: the program's join page, as OpenPATH hosts one per program. Where the program lets phones
 * make their own tokens, the page makes one (any well-formed token of such a program registers, so nothing is
 * stored) for the subgroup picked (`sub_group`, OpenPATH's parameter; `tester=true` for a tester's token) and shows
 * it as a QR code for the app's "Scan code" and as the app's login links. A program that takes only the tokens its
 * operators issue gets a page saying so: handing out its tokens to whoever asks would undo that choice.
 */
export function joinRoutes(deps: { programs: ProgramGate; joinTokens: JoinTokens }): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/join/:program', async (ctx) => {
    const program = ctx.params['program'] ?? '';
    const served = await deps.programs.config(program);
    if (!served) throw new NotFoundError(`no program "${program}"`);
    const config = served.config;
    const name = (config['intro'] as Intro | undefined)?.translated_text?.en?.deployment_name ?? program;
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    ctx.type = 'html';
    if (config.itinera?.closed === true) {
      ctx.body = page(String(name), `<p>${html(config.itinera.closed_message ?? 'This program has ended.')}</p>`);
      return;
    }
    if (!deps.joinTokens.selfMade(config)) {
      ctx.body = page(
        String(name),
        '<p>This program admits participants by invitation. Ask the study team for your invitation code or QR code.</p>',
      );
      return;
    }
    const suspended = new Set(config.opcode?.suspended_subgroups ?? []);
    const open = (config.opcode?.subgroups ?? ['default']).filter((s) => !suspended.has(s));
    const asked = typeof ctx.query['sub_group'] === 'string' ? ctx.query['sub_group'] : undefined;
    const subgroup = asked !== undefined && open.includes(asked) ? asked : open.length === 1 ? open[0] : undefined;
    if (subgroup === undefined) {
      const choices = open
        .map((s) => `<li><a class="button" href="?sub_group=${encodeURIComponent(s)}">${html(s)}</a></li>`)
        .join('');
      ctx.body = page(
        String(name),
        open.length === 0
          ? '<p>This program is not taking new participants.</p>'
          : `<p>Pick your group:</p><ul>${choices}</ul>`,
      );
      return;
    }
    const joined = await deps.joinTokens.make(program, subgroup, ctx.query['tester'] === 'true');
    const emission = `emission://login_token?token=${encodeURIComponent(joined.token)}`;
    const openpath = `nrelopenpath://login_token?token=${encodeURIComponent(joined.token)}`;
    ctx.body = page(
      String(name),
      `<p>Scan this code with the app's "Scan code" button, or open this page on your phone and tap a link below.</p>
${joined.qrSvg}
<p>Your code: <code id="token">${html(joined.token)}</code></p>
<p><a class="button" id="emission-link" href="${html(emission)}">Open in the e-mission app</a><br>
<a class="button" id="openpath-link" href="${html(openpath)}">Open in the NREL OpenPATH app</a></p>
<p>Keep this code: it is how the app knows you. This page makes a new code each time it is opened.</p>`,
    );
  });
  return router;
}
