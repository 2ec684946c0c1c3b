// Chat messages as HTML: rendered by the server's one renderer (sanitised there), cached per
// text, then finished here: `![nod](gif:nod)` becomes an <img> of the inert picture URL, and
// mentions are marked. No SVG markup is ever put into the page: pictures are <img> only.

import { chatApi, gifUrl, type RenderedText } from "./chatApi";

/** Stands in for `gif:` while the server renders (its sanitiser drops unknown URL schemes):
 * a relative URL nobody types, different in every page load. */
const SENTINEL = `quire-chat-gif-${Math.random().toString(36).slice(2, 10)}`;
const GIF_IN_MARKDOWN = /(\]\(\s*<?)gif:(?=[A-Za-z0-9])/g;
const GIF_SOURCE = new RegExp(`src="${SENTINEL}/([A-Za-z0-9][A-Za-z0-9_-]{0,79})"`, "g");
const BATCH = 200;
const MAX_CACHED = 5000;

const cache = new Map<string, RenderedText>();
const pending = new Map<string, Promise<void>>();

function prepared(body: string): string {
  return body.replace(GIF_IN_MARKDOWN, `$1${SENTINEL}/`);
}

/** The rendered HTML of `bodies` that are not rendered yet, fetched in batches. */
export async function renderBodies(bodies: string[]): Promise<void> {
  const missing = [...new Set(bodies)].filter((body) => !cache.has(body) && !pending.has(body));
  for (let start = 0; start < missing.length; start += BATCH) {
    const chunk = missing.slice(start, start + BATCH);
    const job = chatApi.render(chunk.map(prepared));
    // Other callers only wait for the batch; its failure is this caller's to report.
    const settled = job.then(
      () => undefined,
      () => undefined,
    );
    chunk.forEach((body) => pending.set(body, settled));
    try {
      const items = await job;
      chunk.forEach((body, index) => cache.set(body, items[index]!));
      // Keep the most recent texts only: a long session should not hold every chat ever read.
      for (const oldest of cache.keys()) {
        if (cache.size <= MAX_CACHED) break;
        cache.delete(oldest);
      }
    } finally {
      chunk.forEach((body) => pending.delete(body));
    }
  }
  await Promise.all(bodies.map((body) => pending.get(body)).filter(Boolean));
}

export function renderedBody(body: string): RenderedText | undefined {
  return cache.get(body);
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const MENTION = /(?<![\p{L}\p{N}.+\-/@])@([\p{L}\p{N}_][\p{L}\p{N}_.-]*)/gu;
const BROADCAST = new Set(["all", "everyone"]);
const SKIP = new Set(["CODE", "PRE", "A", "KBD", "SAMP"]);

function markMentions(root: HTMLElement, mentioned: Set<string>, reader: string): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      for (let parent = node.parentElement; parent && parent !== root; parent = parent.parentElement) {
        if (SKIP.has(parent.tagName)) return NodeFilter.FILTER_REJECT;
      }
      return node.textContent?.includes("@") ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
    },
  });
  const nodes: Text[] = [];
  while (walker.nextNode()) nodes.push(walker.currentNode as Text);
  for (const node of nodes) {
    const text = node.textContent ?? "";
    const parts: (string | HTMLElement)[] = [];
    let last = 0;
    for (const match of text.matchAll(MENTION)) {
      const end = (match.index ?? 0) + match[0].length;
      if (text[end] === "@") continue;
      const name = match[1]!.replace(/\.+$/, "");
      if (!name || !mentioned.has(name.toLowerCase())) continue;
      const start = match.index ?? 0;
      parts.push(text.slice(last, start));
      const mark = document.createElement("span");
      const lower = name.toLowerCase();
      mark.className = `mention${lower === reader || BROADCAST.has(lower) ? " mention-me" : ""}`;
      mark.textContent = `@${name}`;
      parts.push(mark);
      last = start + 1 + name.length;
    }
    if (parts.length === 0) continue;
    parts.push(text.slice(last));
    node.replaceWith(...parts);
  }
}

/** The finished HTML of a rendered message for `reader` in `workspace`. */
export function finishedHtml(html: string, workspace: string, mentions: string[], reader: string): string {
  const withGifs = html
    .replace(GIF_SOURCE, (_match, name: string) => `src="${escapeAttribute(gifUrl(workspace, name))}" data-gif="${name}"`)
    .split(`${SENTINEL}/`)
    .join("gif:");
  if (mentions.length === 0 && !withGifs.includes("<a ")) return withGifs;
  const template = document.createElement("template");
  template.innerHTML = withGifs;
  const root = document.createElement("div");
  root.append(template.content);
  if (mentions.length) markMentions(root, new Set(mentions), reader.toLowerCase());
  for (const link of root.querySelectorAll<HTMLAnchorElement>("a[href]")) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link.getAttribute("href") ?? "")) {
      link.target = "_blank";
      link.rel = "noopener noreferrer";
    }
  }
  return root.innerHTML;
}

/** Whether a message is addressed to `reader` (by name, @all or @everyone). */
export function isForReader(mentions: string[], reader: string): boolean {
  const name = reader.trim().toLowerCase();
  return mentions.some((item) => item === name || BROADCAST.has(item));
}
