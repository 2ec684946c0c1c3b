// A unified diff's body lines paired into rows for a side-by-side view: a run of removed lines
// sits beside the run of added lines that follows it; unchanged lines sit on both sides.

export interface SplitRow {
  /** "gap" is a hunk header; "same" an unchanged line; "change" a removed and/or added line. */
  kind: "gap" | "same" | "change";
  left: string | null;
  right: string | null;
}

export function sideBySide(lines: string[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let removed: string[] = [];
  let added: string[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(removed.length, added.length); i++) {
      rows.push({ kind: "change", left: removed[i] ?? null, right: added[i] ?? null });
    }
    removed = [];
    added = [];
  };
  for (const line of lines) {
    if (line.startsWith("-")) removed.push(line.slice(1));
    else if (line.startsWith("+")) added.push(line.slice(1));
    else {
      flush();
      const text = line.slice(1);
      rows.push(line.startsWith("@@") ? { kind: "gap", left: line, right: null } : { kind: "same", left: text, right: text });
    }
  }
  flush();
  return rows;
}
