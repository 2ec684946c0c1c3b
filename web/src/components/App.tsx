// The window: sidebar, tabs, the open document, status bar, and the panels over them.
// Keyboard first: Ctrl/Cmd+K commands, Ctrl/Cmd+Shift+F search, Ctrl/Cmd+B activity,
// Ctrl/Cmd+S save, Escape leaves present mode.

import { useEffect } from "preact/hooks";
import { onUnauthorized } from "../api";
import { ChatMode } from "../chat/ChatMode";
import { chatOpen, handleChatEvent, openFromAddress, takeAccountName } from "../chat/chatState";
import { keepLive } from "../collab";
import { EventChannel, type WindowEvent } from "../events";
import { exportDialog } from "../exporting";
import { closeFileDialog, fileDialog, handleDeletedEvent } from "../files/actions";
import { FileDialogs } from "../files/FileDialogs";
import { HistoryPanel } from "../history/HistoryPanel";
import { historyOpen } from "../history/historyState";
import { handleTreeEvent, loadWorkspaces } from "../files/tree";
import {
  activeTab,
  boot,
  connection,
  drawerOpen,
  handleEvent,
  leavePresent,
  paletteOpen,
  presenting,
  resync,
  review,
  save,
  setView,
  settingsOpen,
  signedOut,
  sidebarOpen,
  unseenActivity,
  windowLoaded,
} from "../state";
import { ActivityDrawer } from "./ActivityDrawer";
import { CommandPalette, focusSearch } from "./CommandPalette";
import { DocumentPane, preloadEditor } from "./DocumentPane";
import { ExportDialog } from "./ExportDialog";
import { ReviewPanel } from "./ReviewPanel";
import { ApprovalsList } from "../approvals/ApprovalsList";
import { Settings } from "./Settings";
import { Sidebar } from "./Sidebar";
import { StatusBar } from "./StatusBar";
import { TabBar } from "./TabBar";
import { Toasts } from "./Toasts";
import { Welcome } from "./Welcome";
import { TeamPage } from "../team/TeamPage";
import { account, isMulti, loadAccount, teamPage } from "../team/teamState";

function onKey(event: KeyboardEvent): void {
  const mod = event.ctrlKey || event.metaKey;
  const key = event.key.toLowerCase();
  if (mod && event.shiftKey && !event.altKey && key === "f") {
    event.preventDefault();
    paletteOpen.value = false;
    focusSearch();
  } else if (mod && !event.altKey && key === "k") {
    event.preventDefault();
    paletteOpen.value = !paletteOpen.value;
  } else if (mod && !event.altKey && key === "b") {
    event.preventDefault();
    drawerOpen.value = !drawerOpen.value;
    unseenActivity.value = 0;
  } else if (mod && !event.altKey && key === "s") {
    event.preventDefault();
    void save();
  } else if (mod && !event.altKey && key === "e") {
    const tab = activeTab.value;
    if (!tab) return;
    event.preventDefault();
    void setView(tab.docId, tab.view === "read" ? "edit" : "read");
  } else if (mod && key === "\\") {
    event.preventDefault();
    sidebarOpen.value = !sidebarOpen.value;
  } else if (key === "escape" && !event.defaultPrevented) {
    if (exportDialog.value) exportDialog.value = null;
    else if (fileDialog.value) closeFileDialog();
    else if (paletteOpen.value) paletteOpen.value = false;
    else if (settingsOpen.value) settingsOpen.value = false;
    else if (presenting.value) void leavePresent();
    else if (drawerOpen.value) drawerOpen.value = false;
    else if (historyOpen.value) historyOpen.value = false;
  }
}

function SignedOut() {
  if (isMulti.value) {
    return (
      <div class="signed-out">
        <div class="signed-out-card">
          <h1>Signed out</h1>
          <p>
            This browser is no longer signed in to this Quire server. <a href="/login">Sign in again</a>.
          </p>
        </div>
      </div>
    );
  }
  return (
    <div class="signed-out">
      <div class="signed-out-card">
        <h1>Log in to Quire</h1>
        <p>
          This browser has no session with the server. Open the link <code>quire serve</code> printed when it started
          (it ends in <code>/?token=…</code>), or find it in <code>server.json</code> in Quire's state folder.
        </p>
      </div>
    </div>
  );
}

function PresentHint() {
  return (
    <div class="present-hint" aria-live="polite">
      Presenting · press <kbd>Esc</kbd> to leave
    </div>
  );
}

export function App() {
  useEffect(() => {
    onUnauthorized(() => (signedOut.value = true));
    const onEvent = (event: WindowEvent) => {
      handleEvent(event);
      handleChatEvent(event);
      handleTreeEvent(event);
      handleDeletedEvent(event);
    };
    // Sticky: a reconnect passes through "connecting" between "offline" and "online".
    let wasOffline = false;
    let firstOnline = true;
    const channel = new EventChannel(onEvent, (state) => {
      if (state === "offline") wasOffline = true;
      connection.value = state;
      if (state === "online" && firstOnline) {
        firstOnline = false;
        // What the page's first fetches could not see and no event will tell: anything that
        // changed between those answers and the socket opening (a review or an approval asked
        // for, and the document an agent's review or open put in a tab).
        resync();
      }
      if (state === "online" && wasOffline) {
        wasOffline = false;
        resync();
        // A grant may have come or gone meanwhile (the server ends the stream when it does).
        void loadWorkspaces();
      }
    });
    channel.start();
    // A server restart forgets browser sessions: stop knocking until the person signs in again.
    const stopOnSignOut = signedOut.subscribe((out) => {
      if (!out) return;
      channel.stop();
      keepLive([]);
    });
    boot();
    void loadAccount().then(() => {
      const me = account.peek();
      if (me?.mode === "multi" && me.username) takeAccountName(me.username);
    });
    openFromAddress();
    // Fetch the editor once the window is idle, so switching to Edit is instant.
    const idle = window.setTimeout(preloadEditor, 1500);
    window.addEventListener("keydown", onKey, { capture: true });
    return () => {
      channel.stop();
      stopOnSignOut();
      window.clearTimeout(idle);
      window.removeEventListener("keydown", onKey, { capture: true });
    };
  }, []);

  if (signedOut.value) return <SignedOut />;
  if (teamPage.value) {
    return (
      <div class="app team-app">
        <TeamPage />
        <Toasts />
      </div>
    );
  }
  if (chatOpen.value) {
    return (
      <div class={`app chat-app ${review.value ? "with-review" : ""}`}>
        <ChatMode />
        <ReviewPanel />
        <CommandPalette />
        {settingsOpen.value ? <Settings /> : null}
        <ExportDialog />
        <ApprovalsList />
        <Toasts />
      </div>
    );
  }
  const tab = activeTab.value;
  const isPresenting = presenting.value;
  const classes = [
    "app",
    isPresenting ? "is-presenting" : "",
    sidebarOpen.value && !isPresenting ? "with-sidebar" : "",
    review.value && !isPresenting ? "with-review" : "",
  ];
  return (
    <div class={classes.join(" ")}>
      {isPresenting ? null : <Sidebar />}
      <main class="main">
        {isPresenting ? <PresentHint key={tab?.docId} /> : <TabBar />}
        {tab ? (
          <DocumentPane key={tab.docId} tab={tab} presenting={isPresenting} />
        ) : windowLoaded.value ? (
          <Welcome />
        ) : (
          <div class="loading-doc">
            <span class="spinner" /> Loading…
          </div>
        )}
        {isPresenting ? null : <StatusBar />}
      </main>
      <ReviewPanel />
      {isPresenting ? null : <ActivityDrawer />}
      {isPresenting ? null : <HistoryPanel />}
      <CommandPalette />
      {settingsOpen.value ? <Settings /> : null}
      <ExportDialog />
      <ApprovalsList />
      <FileDialogs />
      <Toasts />
    </div>
  );
}
