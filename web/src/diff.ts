// A line diff (Myers' O(ND) algorithm) for the conflict banner: disk version against the
// person's buffer. Bounded, so a huge conflict degrades to "too different to show".

export interface DiffLine {
  kind: "same" | "add" | "del";
  text: string;
  oldLine: number | null;
  newLine: number | null;
}

const MAX_EDITS = 1200;

export function diffLines(before: string, after: string): DiffLine[] | null {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  if (!found) return null;
  const out: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const row = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && row[offset + k - 1]! < row[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = row[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push({ kind: "same", text: a[x - 1]!, oldLine: x, newLine: y });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) out.push({ kind: "add", text: b[y - 1]!, oldLine: null, newLine: y });
      else out.push({ kind: "del", text: a[x - 1]!, oldLine: x, newLine: null });
    }
    x = prevX;
    y = prevY;
  }
  return out.reverse();
}

/** Only the changed lines with `context` unchanged lines around each change. */
export function hunks(lines: DiffLine[], context = 3): Array<DiffLine | "gap"> {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((line, index) => {
    if (line.kind === "same") return;
    for (let near = Math.max(0, index - context); near <= Math.min(lines.length - 1, index + context); near++) {
      keep[near] = true;
    }
  });
  const out: Array<DiffLine | "gap"> = [];
  lines.forEach((line, index) => {
    if (keep[index]) out.push(line);
    else if (out.length > 0 && out[out.length - 1] !== "gap") out.push("gap");
  });
  if (out[out.length - 1] === "gap") out.pop();
  return out;
}
