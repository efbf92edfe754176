import type { Position, Range, TextDocument, TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';

/**
 * A document kept as its lines, for the language server. The stock document rebuilds its whole
 * text on every keystroke (a 4 MB dataset: 2 000 keystrokes copied 8 GB and left the server ten
 * seconds behind); here an edit rebuilds only the lines it touches, and the whole text is joined
 * once, when an analysis asks for it. Positions follow the LSP rules of the stock document: `\n`,
 * `\r\n` and `\r` end lines, and a position never falls inside a line ending.
 */
export class LineDocument implements TextDocument {
  /** Each line with its line ending (the last line has none). */
  private lines: string[] = [''];
  /** Start offset of each line, rebuilt after an edit when first needed. */
  private starts: number[] | null = null;
  private text: string | null = null;
  private length = 0;

  constructor(
    readonly uri: string,
    readonly languageId: string,
    private ver: number,
    content: string,
  ) {
    this.setText(content);
  }

  get version(): number {
    return this.ver;
  }

  get lineCount(): number {
    return this.lines.length;
  }

  getText(range?: Range): string {
    this.text ??= this.lines.join('');
    if (!range) return this.text;
    return this.text.substring(this.offsetAt(range.start), this.offsetAt(range.end));
  }

  offsetAt(position: Position): number {
    const starts = this.lineStarts();
    if (position.line >= starts.length) return this.length;
    if (position.line < 0) return 0;
    const line = this.lines[position.line];
    const ch = Math.max(0, Math.min(position.character, contentLength(line)));
    return starts[position.line] + ch;
  }

  getLineRange(line: number): Range {
    if (line < 0) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const l = Math.min(line, this.lines.length - 1);
    return { start: { line: l, character: 0 }, end: { line: l, character: contentLength(this.lines[l]) } };
  }

  getEOLCharacters(line: number): string {
    if (line < 0 || line >= this.lines.length) return '';
    const t = this.lines[line];
    return t.slice(contentLength(t));
  }

  positionAt(offset: number): Position {
    const starts = this.lineStarts();
    const o = Math.max(0, Math.min(offset, this.length));
    let lo = 0,
      hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: Math.min(o - starts[lo], contentLength(this.lines[lo])) };
  }

  update(changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    for (const c of changes) {
      if (!('range' in c) || !c.range) {
        this.setText(c.text);
        continue;
      }
      let { start, end } = c.range;
      if (start.line > end.line || (start.line === end.line && start.character > end.character)) [start, end] = [end, start];
      const a = this.offsetAt(start),
        b = this.offsetAt(end);
      const starts = this.lineStarts();
      let sl = this.positionAt(a).line,
        el = this.positionAt(b).line;
      const base = starts[sl];
      const joined = this.lines.slice(sl, el + 1).join('');
      let piece = joined.slice(0, a - base) + c.text + joined.slice(b - base);
      // Seams: a `\r` | `\n` pair across the edit's edges is one line ending; a piece that lost
      // its final ending runs on into the next line.
      if (sl > 0 && this.lines[sl - 1].endsWith('\r') && piece.startsWith('\n')) piece = this.lines[--sl] + piece;
      while (el + 1 < this.lines.length && (!/[\r\n]$/.test(piece) || (piece.endsWith('\r') && this.lines[el + 1].startsWith('\n')))) piece += this.lines[++el];
      const replaced = splitLines(piece);
      // The document's last line has no ending: after a final ending comes an empty line.
      if (el === this.lines.length - 1 && (piece === '' || /[\r\n]$/.test(piece))) replaced.push('');
      if (replaced.length < 10_000) this.lines.splice(sl, el - sl + 1, ...replaced);
      else this.lines = [...this.lines.slice(0, sl), ...replaced, ...this.lines.slice(el + 1)];
      this.length += c.text.length - (b - a);
      this.starts = null;
      this.text = null;
    }
    this.ver = version;
  }

  private setText(text: string): void {
    this.lines = splitLines(text);
    if (!this.lines.length || /[\r\n]$/.test(text)) this.lines.push('');
    this.length = text.length;
    this.text = text;
    this.starts = null;
  }

  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const s = new Array<number>(this.lines.length);
    let o = 0;
    for (let i = 0; i < this.lines.length; i++) {
      s[i] = o;
      o += this.lines[i].length;
    }
    return (this.starts = s);
  }
}

/** Lines with their endings kept (`\r\n` is one ending); no empty line after a final ending. */
function splitLines(text: string): string[] {
  const out: string[] = [];
  const eol = /\r\n|\r|\n/g;
  let last = 0;
  for (let m = eol.exec(text); m; m = eol.exec(text)) {
    out.push(text.slice(last, m.index + m[0].length));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** A line's length without its ending. */
function contentLength(line: string): number {
  return line.endsWith('\r\n') ? line.length - 2 : line.endsWith('\n') || line.endsWith('\r') ? line.length - 1 : line.length;
}
