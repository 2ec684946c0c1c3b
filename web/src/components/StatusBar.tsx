// The status bar: the link to the server, the active document's sync state, words and view.

import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { liveDocument } from "../collab";
import { activeTab, connection, dirty } from "../state";

const VIEW_NAMES = { read: "Read", edit: "Edit", source: "Source" } as const;

function Words({ docId }: { docId: string }) {
  const live = liveDocument(docId);
  const count = useSignal(0);
  useEffect(() => {
    // Counting a long document on every keystroke would cost more than the count is worth.
    let timer: number | undefined;
    let last = 0;
    const recount = () => {
      // Until the first sync the text is empty: count again as soon as it arrives.
      if (live.state.peek() === "synced") last = performance.now();
      const text = live.text.toString().trim();
      count.value = text ? text.split(/\s+/).length : 0;
    };
    const stop = live.version.subscribe(() => {
      window.clearTimeout(timer);
      if (performance.now() - last > 400) recount();
      else timer = window.setTimeout(recount, 400);
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
