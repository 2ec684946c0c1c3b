// Remote images wait for a click. The server renders each one as a placeholder naming its
// host (no address in any src); this adds the buttons, and a click swaps that placeholder for a
// sandboxed frame served by Quire whose own policy allows that one address and nothing else.
// The page's policy never needs to allow remote images for it. Addresses a person loaded are
// remembered per note while the page lives, so a re-render keeps them showing.

const PLACEHOLDER = "span.remote-image[data-src]";
const FRAME_PATH = "/remote-image";

const loadedByNote = new Map<string, Set<string>>();

function loadedOf(note: string): Set<string> {
  let loaded = loadedByNote.get(note);
  if (!loaded) {
    loaded = new Set();
    loadedByNote.set(note, loaded);
  }
  return loaded;
}

/** The absolute http(s) address a placeholder's `data-src` names (a `//host` one takes this
 * page's scheme), or null. */
export function absoluteAddress(src: string): string | null {
  try {
    const url = new URL(src, window.location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

function show(placeholder: HTMLElement, url: string): void {
  const frame = document.createElement("iframe");
  frame.className = "remote-image-frame";
  frame.setAttribute("sandbox", "allow-scripts");
  frame.referrerPolicy = "no-referrer";
  frame.title = placeholder.dataset.alt || `Image from ${placeholder.dataset.host ?? "a remote address"}`;
  const width = Number(placeholder.dataset.width);
  const height = Number(placeholder.dataset.height);
  if (width > 0) frame.style.width = `${width}px`;
  if (width > 0 && height > 0) frame.style.aspectRatio = `${width} / ${height}`;
  frame.src = `${FRAME_PATH}?url=${encodeURIComponent(url)}`;
  placeholder.classList.add("is-loaded");
  placeholder.replaceChildren(frame);
}

function button(text: string, kind: string, label: string): HTMLButtonElement {
  const element = document.createElement("button");
  element.type = "button";
  element.className = `remote-image-button ${kind}`;
  element.textContent = text;
  element.setAttribute("aria-label", label);
  return element;
}

/** Give the placeholders inside `nodes` their buttons; those the person loaded before in
 * `note` load again at once. */
export function preparePlaceholders(nodes: Iterable<Element>, note: string): void {
  const loaded = loadedOf(note);
  for (const node of nodes) {
    const found = node.matches(PLACEHOLDER) ? [node] : [...node.querySelectorAll(PLACEHOLDER)];
    for (const placeholder of found as HTMLElement[]) {
      if (placeholder.classList.contains("is-loaded") || placeholder.querySelector("button")) continue;
      const url = absoluteAddress(placeholder.dataset.src ?? "");
      if (!url) continue;
      if (loaded.has(url)) {
        show(placeholder, url);
        continue;
      }
      const host = placeholder.dataset.host || "a remote address";
      placeholder.append(
        " ",
        button("Load image", "load-one", `Load this image from ${host}`),
        button("Load all in this note", "load-all", "Load every remote image of this note"),
      );
    }
  }
}

/** Handle a click on a placeholder's button inside `root`; true when it was one. */
export function clickPlaceholder(event: MouseEvent, root: HTMLElement, note: string): boolean {
  const target = (event.target as Element | null)?.closest?.(".remote-image-button");
  if (!target) return false;
  event.preventDefault();
  const loaded = loadedOf(note);
  const placeholders = target.classList.contains("load-all")
    ? [...root.querySelectorAll<HTMLElement>(`${PLACEHOLDER}:not(.is-loaded)`)]
    : [target.closest<HTMLElement>(PLACEHOLDER)].filter((found): found is HTMLElement => found !== null);
  for (const placeholder of placeholders) {
    const url = absoluteAddress(placeholder.dataset.src ?? "");
    if (!url) continue;
    loaded.add(url);
    show(placeholder, url);
  }
  return true;
}

interface FrameReport {
  quireRemoteImage: "loaded" | "failed";
  width: number;
  height: number;
}

function isReport(data: unknown): data is FrameReport {
  if (typeof data !== "object" || data === null) return false;
  const report = data as Record<string, unknown>;
  return (
    (report.quireRemoteImage === "loaded" || report.quireRemoteImage === "failed") &&
    typeof report.width === "number" &&
    typeof report.height === "number"
  );
}

// A frame says its image's size (it cannot be measured from here: the frame is another origin).
window.addEventListener("message", (event) => {
  if (!isReport(event.data)) return;
  const report = event.data;
  for (const frame of document.querySelectorAll<HTMLIFrameElement>("iframe.remote-image-frame")) {
    if (frame.contentWindow !== event.source) continue;
    const placeholder = frame.closest<HTMLElement>(".remote-image");
    if (report.quireRemoteImage === "failed" || report.width <= 0 || report.height <= 0) {
      placeholder?.classList.add("is-failed");
      const host = placeholder?.dataset.host || "its host";
      placeholder?.replaceChildren(`The image from ${host} could not be loaded.`);
      return;
    }
    if (!frame.style.width) frame.style.width = `${Math.round(report.width)}px`;
    // The stylesheet caps the height, whatever size a frame reports.
    if (!frame.style.aspectRatio) frame.style.aspectRatio = `${report.width} / ${report.height}`;
    frame.classList.add("is-ready");
    return;
  }
});
