// Draws the server's Mermaid fences as SVG. Loaded only for documents that hold a diagram.

import mermaid from "mermaid";
import { whenNear } from "./near";

let theme: "default" | "dark" | null = null;
let counter = 0;

// Diagrams in the page's own quiet palette rather than Mermaid's defaults.
const LIGHT = {
  background: "#fcfcfb",
  primaryColor: "#eef2fb",
  primaryBorderColor: "#7f9bd6",
  primaryTextColor: "#1e2024",
  secondaryColor: "#f4f3f0",
  tertiaryColor: "#fbfaf7",
  lineColor: "#80848b",
  textColor: "#1e2024",
  noteBkgColor: "#fff7e0",
  noteBorderColor: "#d6b656",
};
const DARK = {
  background: "#1b1c1f",
  primaryColor: "#25304a",
  primaryBorderColor: "#6f8fd6",
  primaryTextColor: "#e3e3e0",
  secondaryColor: "#24262a",
  tertiaryColor: "#202125",
  lineColor: "#8a8e96",
  textColor: "#e3e3e0",
  noteBkgColor: "#3a3320",
  noteBorderColor: "#a08a45",
};

function configure(dark: boolean): void {
  const wanted = dark ? "dark" : "default";
  if (theme === wanted) return;
  theme = wanted;
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    theme: "base",
    darkMode: dark,
    themeVariables: {
      ...(dark ? DARK : LIGHT),
      fontFamily: getComputedStyle(document.body).fontFamily,
      fontSize: "14px",
    },
  });
}

/** More diagrams than this in one document are drawn as the reader reaches them. */
const AT_ONCE = 12;

/** Render every `pre.mermaid` under `root` (at once when there are few, else each as it comes
 * near the view of `scroller`); `redraw` also redraws ones already drawn. */
export async function drawDiagrams(
  root: ParentNode,
  dark: boolean,
  redraw = false,
  scroller?: Element | null,
): Promise<void> {
  configure(dark);
  const selector = redraw ? "pre.mermaid[data-drawn]" : "pre.mermaid:not([data-drawn]):not([data-queued])";
  const pending = [...root.querySelectorAll<HTMLElement>(selector)];
  for (const element of pending) {
    element.dataset.source = element.dataset.source ?? element.textContent ?? "";
    element.dataset.queued = "1";
  }
  if (pending.length <= AT_ONCE || !scroller) {
    for (const element of pending) await draw(element);
  } else {
    whenNear(scroller, pending, (element) => void draw(element as HTMLElement));
  }
}

// Diagrams are drawn one after another: Mermaid renders through one shared, hidden element.
let queue: Promise<void> = Promise.resolve();

function draw(element: HTMLElement): Promise<void> {
  element.dataset.drawn = "1";
  queue = queue.then(async () => {
    const source = element.dataset.source ?? "";
    const id = `quire-mermaid-${++counter}`;
    try {
      const { svg } = await mermaid.render(id, source);
      element.innerHTML = svg;
      element.classList.add("mermaid-drawn");
      element.classList.remove("mermaid-error");
    } catch (error) {
      document.getElementById(id)?.remove();
      document.getElementById(`d${id}`)?.remove();
      element.textContent = source;
      element.classList.add("mermaid-error");
      element.title = `This diagram could not be drawn: ${error instanceof Error ? error.message : String(error)}`;
    }
  });
  return queue;
}
