// Timings the page measures about itself, and hooks the UI tests and `make bench` read
// through `window.__quire` (the page never sends them anywhere).

import { liveDocument } from "./collab";
import { rememberedLine } from "./scroll";

export interface RenderTiming {
  view: string;
  docId: string;
  ms: number;
}

const renders: RenderTiming[] = [];

export const metrics = {
  renders,
  firstRender(view: string, docId: string, ms: number): void {
    renders.push({ view, docId, ms });
  },
};

/** Resolves with the wall-clock time (ms) at which the live text of `docId` first holds `needle`. */
function whenText(docId: string, needle: string, timeoutMs = 30000): Promise<number> {
  const live = liveDocument(docId);
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      if (!live.text.toString().includes(needle)) return false;
      resolve(performance.timeOrigin + performance.now());
      return true;
    };
    if (check()) return;
    const observer = () => {
      if (check()) live.text.unobserve(observer);
    };
    live.text.observe(observer);
    window.setTimeout(() => {
      live.text.unobserve(observer);
      reject(new Error(`the live text never held ${JSON.stringify(needle)}`));
    }, timeoutMs);
  });
}

/** Resolves with the wall-clock time (ms) at which `needle` first shows in the document view. */
function whenShown(needle: string, timeoutMs = 30000): Promise<number> {
  return new Promise((resolve, reject) => {
    const shown = () => (document.querySelector(".doc-body")?.textContent ?? "").includes(needle);
    if (shown()) {
      resolve(performance.timeOrigin + performance.now());
      return;
    }
    const observer = new MutationObserver(() => {
      if (!shown()) return;
      observer.disconnect();
      resolve(performance.timeOrigin + performance.now());
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    window.setTimeout(() => {
      observer.disconnect();
      reject(new Error(`${JSON.stringify(needle)} never showed`));
    }, timeoutMs);
  });
}

declare global {
  interface Window {
    __quire: {
      metrics: typeof metrics;
      text(docId: string): string;
      whenText: typeof whenText;
      whenShown: typeof whenShown;
      place(docId: string): number | undefined;
    };
  }
}

window.__quire = {
  metrics,
  text: (docId: string) => liveDocument(docId).text.toString(),
  whenText,
  whenShown,
  place: rememberedLine,
};
