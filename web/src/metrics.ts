// Timings the page measures about itself, and hooks the UI tests and `make bench` read
// through `window.__quire` (the page never sends them anywhere).

import { liveDocument } from "./collab";
import { rememberedLine } from "./scroll";

export interface RenderTiming {
  view: string;
  docId: string;
  /** "first": the view first shows the document; "whole": all of it (a long document's
   * Read view shows its beginning first). */
  kind: "first" | "whole";
  /** Milliseconds from the view being created to this render. */
  ms: number;
  /** Wall-clock time (ms since the epoch) of this render. */
  at: number;
}

const renders: RenderTiming[] = [];
const waiting = new Set<(timing: RenderTiming) => void>();
const wallClock = () => performance.timeOrigin + performance.now();

function record(timing: RenderTiming): void {
  renders.push(timing);
  waiting.forEach((listener) => listener(timing));
}

export const metrics = {
  renders,
  firstRender(view: string, docId: string, ms: number, whole = true): void {
    record({ view, docId, kind: "first", ms, at: wallClock() });
    if (whole) record({ view, docId, kind: "whole", ms, at: wallClock() });
  },
  wholeRender(view: string, docId: string, ms: number): void {
    record({ view, docId, kind: "whole", ms, at: wallClock() });
  },
};

/** Resolves with the next render of `view` of this `kind` recorded from now on. */
function whenRendered(view: string, kind: RenderTiming["kind"] = "first", timeoutMs = 60000): Promise<RenderTiming> {
  return new Promise((resolve, reject) => {
    const listener = (timing: RenderTiming) => {
      if (timing.view !== view || timing.kind !== kind) return;
      waiting.delete(listener);
      window.clearTimeout(timer);
      resolve(timing);
    };
    const timer = window.setTimeout(() => {
      waiting.delete(listener);
      reject(new Error(`no ${kind} render of the ${view} view within ${timeoutMs} ms`));
    }, timeoutMs);
    waiting.add(listener);
  });
}

/** Resolves with the wall-clock time (ms) at which the live text of `docId` first holds `needle`. */
function whenText(docId: string, needle: string, timeoutMs = 30000): Promise<number> {
  const live = liveDocument(docId);
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      if (!live.text.toString().includes(needle)) return false;
      resolve(wallClock());
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
      resolve(wallClock());
      return;
    }
    const observer = new MutationObserver(() => {
      if (!shown()) return;
      observer.disconnect();
      resolve(wallClock());
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
      whenRendered: typeof whenRendered;
      place(docId: string): number | undefined;
    };
  }
}

window.__quire = {
  metrics,
  text: (docId: string) => liveDocument(docId).text.toString(),
  whenText,
  whenShown,
  whenRendered,
  place: rememberedLine,
};
