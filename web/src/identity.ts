// Who this browser is to the other editors of a document: a name and a cursor colour.

export interface Identity {
  name: string;
  color: string;
  colorLight: string;
}

const COLORS = ["#2f6fd6", "#c2410c", "#0f8a6c", "#9333ea", "#b45309", "#be185d", "#0e7490"];

let cached: Identity | null = null;

export function identity(): Identity {
  if (cached) return cached;
  let name = "Owner";
  let index = Math.floor(Math.random() * COLORS.length);
  try {
    name = localStorage.getItem("quire.name") || name;
    const stored = localStorage.getItem("quire.color");
    if (stored !== null) index = Number(stored) % COLORS.length;
    else localStorage.setItem("quire.color", String(index));
  } catch {
    // Storage can be off (private windows): a fresh colour each visit is fine.
  }
  const color = COLORS[index] ?? COLORS[0]!;
  cached = { name, color, colorLight: `${color}33` };
  return cached;
}

/** On a team server the signed-in account's username is this browser's default name (a name the
 * person set in Settings stays). */
export function adoptAccountName(username: string): void {
  const current = identity();
  let chosen: string | null = null;
  try {
    chosen = localStorage.getItem("quire.name");
  } catch {
    // Storage can be off: nothing was chosen then.
  }
  if (!chosen) cached = { ...current, name: username };
}

/** A stable colour for a name (an agent's flash, its avatar dot). */
export function colorFor(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) | 0;
  return COLORS[Math.abs(hash) % COLORS.length]!;
}
