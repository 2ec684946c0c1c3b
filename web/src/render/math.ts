// Typesets the server's math elements with KaTeX. Loaded only for documents that hold math.

import katex from "katex";
import "katex/dist/katex.min.css";

/** Typeset every `.math` element under `root` that is not typeset yet. */
export function typeset(root: ParentNode): void {
  for (const element of root.querySelectorAll<HTMLElement>(".math:not([data-typeset])")) {
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
}
