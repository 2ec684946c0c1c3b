// Search snippets: plain text whose matches the server wraps in U+0002 … U+0003. Split into
// pieces here and rendered as text nodes (never as HTML), each marked piece in a <mark>.

export const MARK_START = "\u0002";
export const MARK_END = "\u0003";

export interface Piece {
  text: string;
  marked: boolean;
}

/** The snippet's pieces in order; an unclosed mark runs to the end, stray closers are dropped. */
export function pieces(snippet: string): Piece[] {
  const out: Piece[] = [];
  let marked = false;
  let text = "";
  const flush = () => {
    if (text) out.push({ text, marked });
    text = "";
  };
  for (const char of snippet) {
    if (char === MARK_START || char === MARK_END) {
      const opens = char === MARK_START;
      if (opens !== marked) {
        flush();
        marked = opens;
      }
    } else {
      text += char;
    }
  }
  flush();
  return out;
}

/** The snippet as plain text, marks removed. */
export function plain(snippet: string): string {
  return snippet.split(MARK_START).join("").split(MARK_END).join("");
}
