// The open document: its header (where it lives, the view switch, save and present), the
// conflict banner when the file changed on disk under unsaved edits, and the current view.

import { useSignal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import type { EditorPane as EditorPaneType } from "./EditorPane";
import type { TabInfo, View } from "../api";
import { liveDocument } from "../collab";
import { diffLines, hunks } from "../diff";
import { openExportDialog } from "../exporting";
import { historyOpen, toggleHistory } from "../history/historyState";
import { locate } from "../paths";
import {
  conflicts,
  dirty,
  files,
  present,
  refreshDocumentState,
  resolveConflict,
  save,
  setView,
  type Conflict,
} from "../state";
import { Icon, type IconName } from "./Icons";
import { ReadView } from "./ReadView";

const VIEWS: Array<{ view: View; label: string; icon: IconName; hint: string }> = [
  { view: "read", label: "Read", icon: "read", hint: "Read (rendered)" },
  { view: "edit", label: "Edit", icon: "edit", hint: "Edit (live, with agents)" },
  { view: "source", label: "Source", icon: "source", hint: "Markdown source" },
];

function DiffView({ conflict }: { conflict: Conflict }) {
  const lines = diffLines(conflict.disk, conflict.mine);
  if (!lines) return <p class="diff-note">The two versions differ too much to show line by line.</p>;
  const shown = hunks(lines);
  if (shown.length === 0) return <p class="diff-note">The two versions are the same text.</p>;
  return (
    <div class="diff scroll-quiet" role="region" aria-label="Differences between the disk version and yours">
      <div class="diff-legend">
        <span class="diff-del-key">− on disk</span>
        <span class="diff-add-key">+ yours</span>
      </div>
      {shown.map((line, index) =>
        line === "gap" ? (
          <div key={index} class="diff-gap">
            ⋯
          </div>
        ) : (
          <div key={index} class={`diff-line diff-${line.kind}`}>
            <span class="diff-num">{line.kind === "add" ? "" : line.oldLine}</span>
            <span class="diff-num">{line.kind === "del" ? "" : line.newLine}</span>
            <span class="diff-sign">{line.kind === "add" ? "+" : line.kind === "del" ? "−" : " "}</span>
            <span class="diff-text">{line.text || " "}</span>
          </div>
        ),
      )}
    </div>
  );
}

function ConflictBanner({ conflict, name }: { conflict: Conflict; name: string }) {
  const showDiff = useSignal(false);
  return (
    <div class="banner banner-warning conflict-banner" role="alert">
      <div class="banner-row">
        <Icon name="alert" class="banner-icon" />
        <div class="banner-text">
          <strong>{name} changed on disk while you had unsaved changes.</strong>
          <span>Your text is still here. Choose which version to keep.</span>
        </div>
        <div class="banner-actions">
          <button class="button button-primary" onClick={() => void resolveConflict(conflict.docId, "mine")}>
            Keep mine
          </button>
          <button class="button" onClick={() => void resolveConflict(conflict.docId, "disk")}>
            Take disk version
          </button>
          <button class="button button-ghost" onClick={() => (showDiff.value = !showDiff.value)} aria-expanded={showDiff.value}>
            <Icon name="diff" size={14} /> {showDiff.value ? "Hide diff" : "Show diff"}
          </button>
        </div>
      </div>
      {showDiff.value ? <DiffView conflict={conflict} /> : null}
    </div>
  );
}

function Presence({ docId }: { docId: string }) {
  const live = liveDocument(docId);
  const peers = useSignal<Array<{ name: string; color: string }>>([]);
  useEffect(() => {
    const update = () => {
      peers.value = [...live.awareness.getStates().entries()]
        .filter(([id]) => id !== live.doc.clientID)
        .map(([, value]) => (value as { user?: { name?: string; color?: string } }).user)
        .filter((user): user is { name: string; color: string } => Boolean(user?.name));
    };
    update();
    live.awareness.on("change", update);
    return () => live.awareness.off("change", update);
  }, [live]);
  if (peers.value.length === 0) return null;
  return (
    <div class="presence" title={`Also here: ${peers.value.map((peer) => peer.name).join(", ")}`}>
      {peers.value.slice(0, 4).map((peer, index) => (
        <span key={index} class="avatar" style={{ background: peer.color }}>
          {peer.name.slice(0, 1).toUpperCase()}
        </span>
      ))}
    </div>
  );
}

type EditorComponent = typeof EditorPaneType;
let editorModule: Promise<EditorComponent> | null = null;
let editorLoaded: EditorComponent | null = null;

/** CodeMirror and its Yjs binding load on first use of Edit or Source (or when idle). */
export function loadEditor(): Promise<EditorComponent> {
  editorModule ??= import("./EditorPane").then(
    (module) => (editorLoaded = module.EditorPane),
    (error: unknown) => {
      editorModule = null; // a failed load (signed out, server gone) is tried again on next use
      throw error;
    },
  );
  return editorModule;
}

/** Loads the editor ahead of its first use; a failure waits for that use to try again. */
export function preloadEditor(): void {
  loadEditor().catch(() => undefined);
}

function LazyEditor({ tab, mode }: { tab: TabInfo; mode: "edit" | "source" }) {
  const [Editor, setEditor] = useState<EditorComponent | null>(() => editorLoaded);
  const failed = useSignal(false);
  useEffect(() => {
    if (!Editor)
      loadEditor().then(
        (component) => setEditor(() => component),
        () => (failed.value = true),
      );
  }, []);
  if (failed.value) {
    return (
      <div class="loading-doc" role="alert">
        The editor could not be loaded from the server. Check that `quire serve` runs and you are
        signed in, then reload the page.
      </div>
    );
  }
  if (!Editor) {
    return (
      <div class="loading-doc">
        <span class="spinner" /> Loading the editor…
      </div>
    );
  }
  return <Editor tab={tab} mode={mode} />;
}

export function DocumentHeader({ tab }: { tab: TabInfo }) {
  const where = locate(tab.path, files.value);
  const unsaved = dirty.value[tab.docId] === true;
  return (
    <header class="doc-header">
      <nav class="crumbs" aria-label="Location" title={tab.path}>
        {where.workspace ? <span class="crumb crumb-root">{where.workspace}</span> : null}
        {where.folders.map((folder, index) => (
          <span key={index} class="crumb">
            {folder}
          </span>
        ))}
        <span class="crumb crumb-file">{where.name}</span>
        {unsaved ? <span class="unsaved-note">Edited</span> : null}
      </nav>
      <div class="doc-tools">
        <Presence docId={tab.docId} />
        <div class="segmented" role="radiogroup" aria-label="View">
          {VIEWS.map((item) => (
            <button
              key={item.view}
              role="radio"
              aria-checked={tab.view === item.view}
              class={tab.view === item.view ? "on" : ""}
              onClick={() => void setView(tab.docId, item.view)}
              title={item.hint}
              data-view-button={item.view}
            >
              <Icon name={item.icon} size={14} />
              <span>{item.label}</span>
            </button>
          ))}
        </div>
        <button
          class={`button button-quiet save-button ${unsaved ? "needs-save" : ""}`}
          onClick={() => void save(tab)}
          disabled={!unsaved}
          title="Save (Ctrl+S)"
        >
          <Icon name={unsaved ? "save" : "check"} size={14} />
          <span>{unsaved ? "Save" : "Saved"}</span>
        </button>
        <button
          class="icon-button"
          onClick={() => openExportDialog(tab.path)}
          title="Export as PDF, HTML, Word or EPUB"
          aria-label="Export"
          data-export-button
        >
          <Icon name="export" />
        </button>
        <button
          class={`icon-button ${historyOpen.value ? "on" : ""}`}
          onClick={toggleHistory}
          title="History: who changed what, and restore a version"
          aria-label="History"
          aria-pressed={historyOpen.value}
          data-history-button
        >
          <Icon name="clock" />
        </button>
        <button class="icon-button" onClick={() => void present()} title="Present (Esc leaves)" aria-label="Present">
          <Icon name="present" />
        </button>
      </div>
    </header>
  );
}

export function DocumentPane({ tab, presenting }: { tab: TabInfo; presenting: boolean }) {
  useEffect(() => {
    refreshDocumentState(tab.docId);
    // Someone else's change (another window, the disk) may have made it dirty or clean.
    const live = liveDocument(tab.docId);
    let seen = live.remote.peek();
    const stop = live.remote.subscribe((count) => {
      if (count !== seen) {
        seen = count;
        refreshDocumentState(tab.docId, 300);
      }
    });
    const onFocus = () => refreshDocumentState(tab.docId);
    window.addEventListener("focus", onFocus);
    return () => {
      stop();
      window.removeEventListener("focus", onFocus);
    };
  }, [tab.docId]);
  const conflict = conflicts.value[tab.docId];
  const view: View = presenting ? "read" : tab.view;
  return (
    <section class="document" aria-label={tab.fileName}>
      {presenting ? null : <DocumentHeader tab={tab} />}
      {conflict && !presenting ? <ConflictBanner conflict={conflict} name={tab.fileName} /> : null}
      <div class="doc-body">
        {view === "read" ? (
          <ReadView key={`${tab.docId}:read`} tab={tab} presenting={presenting} />
        ) : (
          <LazyEditor key={`${tab.docId}:${view}`} tab={tab} mode={view} />
        )}
      </div>
    </section>
  );
}
