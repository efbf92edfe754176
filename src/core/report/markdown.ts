/**
 * Escaping for Markdown reports: data from result files (agent names, error text, rule causes)
 * must not split a table row, start a heading, open a link or pass raw HTML through.
 */
const INLINE = /[\\`*_{}[\]()#+!|~>]/g;

/** Text safe inside a table cell or a paragraph: one line, Markdown and HTML inert. */
export function mdText(s: string | null | undefined, max = 300): string {
  if (s == null) return '';
  let t = String(s)
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  if (t.length > max) t = t.slice(0, max - 1) + '…';
  return t
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(INLINE, c => (c === '>' ? '&gt;' : `\\${c}`));
}

/** A link whose URL is only ever http(s) (anything else is shown as text). */
export function mdLink(label: string, url: string | null | undefined): string {
  if (!url || !/^https?:\/\/[^\s()<>]+$/.test(url)) return mdText(label);
  return `[${mdText(label)}](${url})`;
}
