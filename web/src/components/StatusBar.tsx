// The status bar: the link to the server, the active document's sync state, words and view.

import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { liveDocument } from "../collab";
import { activeTab, connection, dirty } from "../state";

const VIEW_NAMES = { read: "Read", edit: "Edit", source: "Source" } as const;

/** Whether the UTF-16 code unit ``code`` is a character ``\s`` matches. */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return (
    code === 160 ||
    code === 5760 ||
    (code >= 8192 && code <= 8202) ||
    code === 8232 ||
    code === 8233 ||
    code === 8239 ||
    code === 8287 ||
    code === 12288 ||
    code === 65279
  );
}

/** The words of ``text`` (its runs of non-space characters), counted without building them:
 * ``text.trim().split(/\s+/)`` made millions of strings for a 16 MiB document and held the tab
 * for seconds. */
export function wordCount(text: string): number {
  let count = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    const space = isSpace(text.charCodeAt(index));
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

function Words({ docId }: { docId: string }) {
  const live = liveDocument(docId);
  const count = useSignal(0);
  useEffect(() => {
    // Counting a long document on every keystroke would cost more than the count is worth:
    // recount at most every 400 ms, and for a long document no more than a twentieth of the
    // time (a 16 MiB count takes tens of milliseconds, which typing must not wait for often).
    let timer: number | undefined;
    let last = 0;
    let gap = 400;
    const recount = () => {
      // Until the first sync the text is empty: count again as soon as it arrives.
      const started = performance.now();
      if (live.state.peek() === "synced") last = started;
      count.value = wordCount(live.text.toString());
      gap = Math.max(400, 20 * (performance.now() - started));
    };
    const stop = live.version.subscribe(() => {
      window.clearTimeout(timer);
      const waited = performance.now() - last;
      if (waited > gap) recount();
      else timer = window.setTimeout(recount, gap - waited);
    });
    return () => {
      stop();
      window.clearTimeout(timer);
    };
  }, [live]);
  const state = live.state.value;
  return (
    <>
      <span class={`status-item sync-${state}`}>
        {state === "synced" ? "Live" : state === "connecting" ? "Syncing…" : "Offline: edits kept here"}
      </span>
      {state === "synced" ? <span class="status-item">{count.value.toLocaleString()} words</span> : null}
    </>
  );
}

export function StatusBar() {
  const tab = activeTab.value;
  const online = connection.value;
  return (
    <footer class="statusbar">
      <span class={`status-item conn conn-${online}`}>
        <span class="conn-dot" />
        {online === "online" ? "Connected" : online === "connecting" ? "Connecting…" : "Reconnecting…"}
      </span>
      {tab ? <Words docId={tab.docId} /> : null}
      <span class="status-spacer" />
      {tab ? (
        <>
          <span class="status-item">{dirty.value[tab.docId] ? "Unsaved changes" : "All changes saved"}</span>
          <span class="status-item">{VIEW_NAMES[tab.view]}</span>
        </>
      ) : null}
      <span class="status-item status-keys">
        <kbd>Ctrl</kbd>
        <kbd>K</kbd> commands
      </span>
    </footer>
  );
}
