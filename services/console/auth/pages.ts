/**
 * The few pages the login flow answers itself, for a browser in the middle of a redirect dance: no styles, no
 * scripts (the console's CSP allows neither inline), every interpolated value escaped.
 */
export function authPage({
  title,
  message,
  link,
}: {
  title: string;
  message: string;
  link?: { href: string; text: string };
}): string {
  const action = link === undefined ? '' : `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} · Itinera console</title></head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
${action}
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
