// Typesets the server's math elements with KaTeX. Loaded only for documents that hold math.

import katex from "katex";
import "katex/dist/katex.min.css";
import { whenNear } from "./near";

/** More math than this in one document is typeset as the reader reaches it. */
const AT_ONCE = 150;

/** Typeset every `.math` element under `root` not typeset yet: at once when there are few,
 * else each as it comes near the view of `scroller`. */
export function typeset(root: ParentNode, scroller?: Element | null): void {
  const pending = [...root.querySelectorAll<HTMLElement>(".math:not([data-typeset]):not([data-queued])")];
  for (const element of pending) element.dataset.queued = "1";
  if (pending.length <= AT_ONCE || !scroller) pending.forEach(typesetOne);
  else whenNear(scroller, pending, (element) => typesetOne(element as HTMLElement));
}

function typesetOne(element: HTMLElement): void {
  const tex = element.textContent ?? "";
  element.dataset.typeset = "1";
  element.dataset.tex = tex;
  try {
    katex.render(tex, element, {
      displayMode: element.classList.contains("math-display"),
      throwOnError: false,
      output: "htmlAndMathml",
      trust: false,
      strict: "ignore",
    });
  } catch {
    element.textContent = tex;
    element.classList.add("math-error");
  }
}
