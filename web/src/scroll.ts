// Keeping the reader's place across views: every view records the source line at its top,
// and the next view starts there. The Read view has no line map (its HTML is the export's),
// so a rendered block is matched to its source line by its words, near where it should be.

const anchors = new Map<string, number>();

export function rememberLine(docId: string, line: number): void {
  anchors.set(docId, Math.max(1, Math.round(line)));
}

export function rememberedLine(docId: string): number | undefined {
  return anchors.get(docId);
}

let capture: (() => void) | null = null;

/** The showing view registers how to take its place, called before a view switch; the
 * returned function unregisters it (when it is still the one registered). */
export function onLeave(take: () => void): () => void {
  capture = take;
  return () => {
    if (capture === take) capture = null;
  };
}

/** Record the showing view's place now (its DOM is about to go). */
export function takePlace(): void {
  capture?.();
}

const MARKUP = /[*_`~#>|[\]()!\\=:+-]+/g;

function normalise(text: string): string {
  return text.toLowerCase().replace(MARKUP, " ").replace(/\s+/g, " ").trim();
}

function leadingWords(text: string, count: number): string[] {
  return normalise(text)
    .split(" ")
    .filter((word) => word.length > 0)
    .slice(0, count);
}

const BLOCKS = "h1,h2,h3,h4,h5,h6,p,li,pre,blockquote,tr,hr,.math-display,dt,dd,img";

/** The source line a rendered block came from, best guess near `estimate` (1-based). */
export function lineOfBlock(source: string, block: Element, estimate: number): number {
  const box = block.querySelector("input[data-line]") ?? (block.matches("[data-line]") ? block : null);
  const exact = Number(box?.getAttribute("data-line"));
  if (exact > 0) return exact;
  const words = leadingWords(block.textContent ?? "", 6);
  if (words.length === 0) return estimate;
  const lines = source.split("\n").map(normalise);
  for (let size = words.length; size >= Math.min(2, words.length); size--) {
    const phrase = words.slice(0, size).join(" ");
    let best = -1;
    lines.forEach((line, index) => {
      if (line.includes(phrase) && (best < 0 || Math.abs(index + 1 - estimate) < Math.abs(best + 1 - estimate))) {
        best = index;
      }
    });
    if (best >= 0) return best + 1;
  }
  return estimate;
}

/** The rendered block showing source `line`, or null when no block's words match. */
export function blockOfLine(container: Element, source: string, line: number): Element | null {
  const tasks = container.querySelectorAll(`input[data-line="${line}"]`);
  if (tasks[0]) return tasks[0].closest("li") ?? tasks[0];
  const lines = source.split("\n");
  let words: string[] = [];
  for (let index = line - 1; index < Math.min(lines.length, line + 6) && words.length < 2; index++) {
    words = leadingWords(lines[index] ?? "", 5);
  }
  if (words.length === 0) return null;
  const blocks = [...container.querySelectorAll(BLOCKS)];
  const total = Math.max(1, lines.length);
  const height = container.scrollHeight || 1;
  const expected = ((line - 1) / total) * height;
  for (let size = words.length; size >= 1; size--) {
    const phrase = words.slice(0, size).join(" ");
    let best: Element | null = null;
    let bestDistance = Infinity;
    for (const block of blocks) {
      if (!normalise(block.textContent ?? "").includes(phrase)) continue;
      const distance = Math.abs((block as HTMLElement).offsetTop - expected);
      if (distance < bestDistance) {
        best = block;
        bestDistance = distance;
      }
    }
    if (best) {
      // Prefer the innermost match (an item, not the whole list).
      const inner = [...best.querySelectorAll(BLOCKS)].find((child) => normalise(child.textContent ?? "").includes(phrase));
      return inner ?? best;
    }
    if (size <= 2) break;
  }
  return null;
}

/** The first block whose bottom is below `top` inside `scroller`. */
export function topBlock(scroller: HTMLElement, container: Element): Element | null {
  const top = scroller.getBoundingClientRect().top + 8;
  const blocks = container.querySelectorAll(BLOCKS);
  for (const block of blocks) {
    const rect = block.getBoundingClientRect();
    if (rect.bottom > top && rect.height > 0) return block;
  }
  return null;
}
