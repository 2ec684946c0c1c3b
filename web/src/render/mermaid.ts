// Draws the server's Mermaid fences as SVG. Loaded only for documents that hold a diagram.

import mermaid from "mermaid";

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

/** Render every `pre.mermaid` under `root`; `redraw` also redraws ones already drawn. */
export async function drawDiagrams(root: ParentNode, dark: boolean, redraw = false): Promise<void> {
  configure(dark);
  const selector = redraw ? "pre.mermaid" : "pre.mermaid:not([data-drawn])";
  for (const element of root.querySelectorAll<HTMLElement>(selector)) {
    const source = element.dataset.source ?? element.textContent ?? "";
    element.dataset.source = source;
    element.dataset.drawn = "1";
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
  }
}
