// The Read view: the server's rendering of the live text (the same renderer as the exports),
// refreshed as the document changes. Only the blocks that changed are replaced, so diagrams
// and the scroll position stay put; Mermaid and KaTeX are fetched only when a document has them.

import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { api, type RenderedBlocks, type TabInfo } from "../api";
import { liveDocument } from "../collab";
import { metrics } from "../metrics";
import { filesApi } from "../files/filesApi";
import { isMarkdown, resolveLink } from "../paths";
import { blockOfLine, lineOfBlock, onLeave, rememberedLine, rememberLine, topBlock } from "../scroll";
import { agentEdits, markDirty, openPath, pendingLines, toast, toggleTask, windowState } from "../state";
import { clickPlaceholder, preparePlaceholders } from "../render/remoteImages";
import { Backlinks } from "./Backlinks";

const darkQuery = window.matchMedia("(prefers-color-scheme: dark)");
const FLASH_MS = 2600;
/** Documents of more blocks than this lay out only the blocks near the screen (see document.css). */
const LONG_BLOCKS = 300;

/** One unit of the server's rendering in the page: its id and the nodes its HTML made. */
interface Unit {
  id: string;
  nodes: Node[];
}

/** Parse the HTML of `blocks` in one go (a comment, which sanitised HTML never holds, starts
 * each), as units of nodes not yet in the page. */
function parseUnits(blocks: RenderedBlocks["blocks"], path: string): Unit[] {
  const template = document.createElement("template");
  template.innerHTML = blocks.map((block) => `<!--q-->${block.html}`).join("");
  localPictures(template.content, path);
  const units: Unit[] = [];
  for (const node of [...template.content.childNodes]) {
    if (node.nodeType === Node.COMMENT_NODE) {
      units.push({ id: blocks[units.length]!.id, nodes: [] });
      template.content.removeChild(node);
    } else {
      units[units.length - 1]?.nodes.push(node);
    }
  }
  return units;
}

/** Replace `count` units at `start` of `units` (and their nodes in `container`) with
 * `fresh`; returns the elements put in. Units before and after keep their nodes. */
function spliceUnits(container: HTMLElement, units: Unit[], start: number, count: number, fresh: Unit[]): Element[] {
  const removed = units.splice(start, count, ...fresh);
  for (const unit of removed) for (const node of unit.nodes) node.parentNode?.removeChild(node);
  const after = units.slice(start + fresh.length).find((unit) => unit.nodes.length > 0);
  const anchor = after?.nodes[0] ?? null;
  const inserted: Element[] = [];
  for (const unit of fresh) {
    for (const node of unit.nodes) {
      container.insertBefore(node, anchor);
      if (node instanceof Element) inserted.push(node);
    }
  }
  return inserted;
}

/** Bring `units` to the server's answer: its splice when it is based on the version shown,
 * else every unit, keeping the ones at the start and end whose ids did not change. */
function applyBlocks(container: HTMLElement, units: Unit[], answer: RenderedBlocks, shown: string | null, path: string): Element[] {
  if (answer.base != null && answer.base === shown) {
    return spliceUnits(container, units, answer.start, answer.deleteCount, parseUnits(answer.blocks, path));
  }
  const ids = answer.blocks.map((block) => block.id);
  let head = 0;
  while (head < units.length && head < ids.length && units[head]!.id === ids[head]) head++;
  let tail = 0;
  while (
    tail < units.length - head &&
    tail < ids.length - head &&
    units[units.length - 1 - tail]!.id === ids[ids.length - 1 - tail]
  ) {
    tail++;
  }
  const fresh = parseUnits(answer.blocks.slice(head, ids.length - tail), path);
  return spliceUnits(container, units, head, units.length - head - tail, fresh);
}

/** Point the pictures a note names by a relative path (`assets/a.png`) at the file download of
 * that picture, before they load: relative to the page they would miss. */
function localPictures(root: DocumentFragment, path: string): void {
  for (const image of root.querySelectorAll<HTMLImageElement>("img[src]")) {
    const src = image.getAttribute("src") ?? "";
    if (/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(src)) continue;
    const resolved = resolveLink(path, src);
    if (resolved) image.setAttribute("src", filesApi.downloadUrl(resolved.path));
  }
}

function prepare(nodes: Element[]): void {
  for (const node of nodes) {
    for (const box of node.querySelectorAll<HTMLInputElement>("input.task-list-item-checkbox")) {
      box.disabled = false;
      box.setAttribute("aria-label", box.checked ? "Done: click to mark not done" : "Not done: click to mark done");
    }
    for (const link of node.querySelectorAll<HTMLAnchorElement>("a[href]")) {
      const href = link.getAttribute("href") ?? "";
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) {
        link.target = "_blank";
        link.rel = "noopener noreferrer";
      }
    }
  }
}

async function finish(
  container: HTMLElement,
  rendered: { has_math: boolean; has_mermaid: boolean },
  redraw = false,
): Promise<void> {
  const scroller = container.closest(".read-scroller");
  const jobs: Promise<void>[] = [];
  if (rendered.has_math && container.querySelector(".math:not([data-typeset]):not([data-queued])")) {
    jobs.push(import("../render/math").then((module) => module.typeset(container, scroller)));
  }
  const undrawn = "pre.mermaid:not([data-drawn]):not([data-queued])";
  if (rendered.has_mermaid && (redraw || container.querySelector(undrawn))) {
    jobs.push(
      import("../render/mermaid").then((module) => module.drawDiagrams(container, darkQuery.matches, redraw, scroller)),
    );
  }
  await Promise.all(jobs);
}

function flash(nodes: Element[], author: string): void {
  for (const node of nodes) {
    if (!(node instanceof HTMLElement)) continue;
    node.classList.add("agent-flash");
    node.dataset.agent = author;
    window.setTimeout(() => {
      node.classList.remove("agent-flash");
      delete node.dataset.agent;
    }, FLASH_MS);
  }
}

function takePending(docId: string): number | undefined {
  const line = pendingLines.peek()[docId];
  if (line !== undefined) {
    const rest = { ...pendingLines.peek() };
    delete rest[docId];
    pendingLines.value = rest;
  }
  return line;
}

export function ReadView({ tab, presenting }: { tab: TabInfo; presenting: boolean }) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const state = useSignal<"loading" | "ready" | "error">("loading");
  /** The whole document is showing, not only a long document's beginning. */
  const whole = useSignal(false);
  const problem = useSignal("");
  const live = liveDocument(tab.docId);

  /** Scroll so source `line` is at the top; `mark` highlights the block briefly. */
  const goToLine = async (line: number, mark: boolean) => {
    const container = content.current;
    const box = scroller.current;
    if (!container || !box) return;
    await Promise.race([live.whenSynced(), new Promise((resolve) => window.setTimeout(resolve, 1500))]);
    const source = live.text.toString();
    const block = blockOfLine(container, source, line);
    if (block) {
      box.scrollTop += block.getBoundingClientRect().top - box.getBoundingClientRect().top - 24;
      if (mark) flash([block], "");
    } else {
      const total = Math.max(1, source.split("\n").length);
      box.scrollTop = ((line - 1) / total) * box.scrollHeight;
    }
  };

  // A line asked for while this view is already showing (search, an agent's open).
  useEffect(() => {
    if (!whole.value || pendingLines.value[tab.docId] === undefined) return;
    const line = takePending(tab.docId);
    if (line) void goToLine(line, true);
  }, [pendingLines.value[tab.docId], whole.value]);

  useEffect(() => {
    let cancelled = false;
    let busy = false;
    let again = false;
    let timer: number | undefined;
    let first = true;
    let latest: RenderedBlocks | null = null;
    /** The units shown, in order, and the version they are. */
    const units: Unit[] = [];
    let shown: string | null = null;
    let lastInserted: { nodes: Element[]; at: number } | null = null;
    let flashedEdit = agentEdits.peek()[tab.docId]?.at ?? 0;
    const started = performance.now();

    const restorePlace = async () => {
      const pending = takePending(tab.docId);
      const line = pending ?? rememberedLine(tab.docId);
      if (line && line > 1) await goToLine(line, pending !== undefined);
    };

    const load = async () => {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      try {
        // A long document's beginning comes first, so the view shows at once; the rest follows.
        // Only the blocks changed since the version shown come back; the others stay put.
        const rendered = await api.blocks(tab.docId, first, shown ?? undefined);
        if (cancelled || !content.current) return;
        latest = rendered;
        if (typeof rendered.dirty === "boolean") markDirty(tab.docId, rendered.dirty);
        content.current.classList.toggle("is-long", rendered.partial === true || rendered.total > LONG_BLOCKS);
        // The tab's path now: a rename or move changes it under the same document.
        const path = windowState.peek().tabs.find((open) => open.docId === tab.docId)?.path ?? tab.path;
        const inserted = applyBlocks(content.current, units, rendered, shown, path);
        shown = rendered.version;
        prepare(inserted);
        preparePlaceholders(inserted, tab.docId);
        state.value = "ready";
        if (first) {
          first = false;
          metrics.firstRender("read", tab.docId, performance.now() - started, !rendered.partial);
        } else if (!rendered.partial && !whole.peek()) {
          metrics.wholeRender("read", tab.docId, performance.now() - started);
        }
        if (rendered.partial) {
          again = true;
        } else if (!whole.peek()) {
          // The reader's place (or the line asked for) is found in the whole document.
          await restorePlace();
          whole.value = true;
        } else if (inserted.length > 0) {
          lastInserted = { nodes: inserted, at: Date.now() };
          const edit = agentEdits.peek()[tab.docId];
          if (edit && Date.now() - edit.at < 3000 && edit.at > flashedEdit) {
            flashedEdit = edit.at;
            flash(inserted, edit.author);
            lastInserted = null;
          }
        }
        await finish(content.current, rendered);
      } catch (error) {
        if (cancelled) return;
        state.value = "error";
        problem.value = error instanceof Error ? error.message : String(error);
      } finally {
        busy = false;
        if (again && !cancelled) {
          again = false;
          schedule(0);
        }
      }
    };

    // Render at once when idle; changes that arrive during a render are coalesced into one.
    const schedule = (delay = 0) => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void load(), delay);
    };

    void load();
    let seen = live.version.peek();
    const stopText = live.version.subscribe((version) => {
      if (version !== seen) {
        seen = version;
        schedule();
      }
    });
    const stopEdits = agentEdits.subscribe((edits) => {
      const edit = edits[tab.docId];
      if (!edit || edit.at <= flashedEdit) return;
      if (lastInserted && Date.now() - lastInserted.at < 1500) {
        flashedEdit = edit.at;
        flash(lastInserted.nodes, edit.author);
        lastInserted = null;
      }
    });
    const onTheme = () => {
      if (latest?.has_mermaid && content.current) void finish(content.current, latest, true);
    };
    darkQuery.addEventListener("change", onTheme);
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
      stopText();
      stopEdits();
      darkQuery.removeEventListener("change", onTheme);
    };
  }, [tab.docId]);

  useEffect(() => {
    // Captured now: Preact clears refs before running this effect's cleanup.
    const box = scroller.current;
    const container = content.current;
    if (!box || !container) return;
    let timer: number | undefined;
    const record = () => {
      if (state.peek() !== "ready" || !box.isConnected) return;
      if (box.scrollTop < 4) {
        rememberLine(tab.docId, 1);
        return;
      }
      const source = live.text.toString();
      const total = Math.max(1, source.split("\n").length);
      const estimate = Math.round((box.scrollTop / Math.max(1, box.scrollHeight)) * total) + 1;
      const block = topBlock(box, container);
      rememberLine(tab.docId, block ? lineOfBlock(source, block, estimate) : estimate);
    };
    const onScroll = () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(record, 100);
    };
    box.addEventListener("scroll", onScroll, { passive: true });
    const release = onLeave(record);
    return () => {
      window.clearTimeout(timer);
      release();
      box.removeEventListener("scroll", onScroll);
    };
  }, [tab.docId]);

  const onClick = (event: MouseEvent) => {
    if (content.current && clickPlaceholder(event, content.current, tab.docId)) return;
    const target = event.target as HTMLElement;
    if (target instanceof HTMLInputElement && target.classList.contains("task-list-item-checkbox")) {
      const line = Number(target.dataset.line);
      const checked = target.checked;
      target.disabled = true;
      void toggleTask(tab.docId, line, checked).then((ok) => {
        target.disabled = false;
        if (!ok) target.checked = !checked;
      });
      return;
    }
    const link = target.closest("a[href]");
    if (!link) return;
    const href = link.getAttribute("href") ?? "";
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return;
    event.preventDefault();
    if (href.startsWith("#")) {
      const id = decodeURIComponent(href.slice(1));
      const element = id ? content.current?.querySelector(`[id="${CSS.escape(id)}"]`) : null;
      element?.scrollIntoView({ block: "start", behavior: "smooth" });
      return;
    }
    const resolved = resolveLink(tab.path, href);
    if (!resolved) return;
    if (isMarkdown(resolved.path)) void openPath(resolved.path);
    else toast(`Quire opens Markdown documents only; “${href}” is not one.`);
  };

  return (
    <div class={`read-scroller ${presenting ? "presenting" : ""}`} ref={scroller} data-view="read">
      {state.value === "loading" ? (
        <div class="loading-doc">
          <span class="spinner" /> Rendering…
        </div>
      ) : null}
      {state.value === "error" ? (
        <div class="doc-error" role="alert">
          <strong>This document could not be rendered.</strong>
          <p>{problem.value}</p>
        </div>
      ) : null}
      <article class="markdown-body read-content" ref={content} onClick={onClick} />
      {presenting || state.value !== "ready" ? null : <Backlinks path={tab.path} />}
    </div>
  );
}
