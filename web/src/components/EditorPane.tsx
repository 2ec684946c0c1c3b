// The Edit and Source views: a CodeMirror editor on the live document, created once the
// first sync with the server is done (so it never shows an empty document first).

import { useSignal } from "@preact/signals";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { useEffect, useRef } from "preact/hooks";
import { ySyncAnnotation } from "y-codemirror.next";
import type { TabInfo } from "../api";
import { liveDocument } from "../collab";
import { editorExtensions } from "../editor/setup";
import { uploadOnDrop } from "../editor/drop";
import { flashTracker } from "../editor/flash";
import { focusClaimedSinceOpened } from "../focusClaims";
import { metrics } from "../metrics";
import { onLeave, rememberedLine, rememberLine } from "../scroll";
import { agentEdits, markDirty, pendingLines, windowState } from "../state";

function topLine(view: EditorView): number {
  const top = view.scrollDOM.getBoundingClientRect().top;
  const block = view.lineBlockAtHeight(top - view.documentTop + 6);
  return view.state.doc.lineAt(block.from).number;
}

function goToLine(view: EditorView, line: number, placeCursor: boolean): void {
  const doc = view.state.doc;
  const target = doc.line(Math.min(Math.max(1, line), doc.lines));
  view.dispatch({
    effects: EditorView.scrollIntoView(target.from, { y: placeCursor ? "center" : "start", yMargin: 12 }),
    ...(placeCursor ? { selection: { anchor: target.from } } : {}),
  });
}

/** Whether a newly ready editor may take the focus: not from a field the person is typing in
 * (the tree's rename field, a dialog's input), and not from anything they moved to while the
 * document was loading: an element other than the one focused when the editor started, or a
 * place focused on purpose since the document opened (a row revealed before a late editor
 * started is the very element focused then). */
function mayTakeFocus(focusedAtStart: Element | null, docId: string): boolean {
  const focused = document.activeElement;
  if (focused === null || focused === document.body) return true;
  if (focused instanceof HTMLInputElement || focused instanceof HTMLTextAreaElement) return false;
  if (focused instanceof HTMLElement && focused.isContentEditable) return false;
  return focused === focusedAtStart && !focusClaimedSinceOpened(docId);
}

export function EditorPane({ tab, mode }: { tab: TabInfo; mode: "edit" | "source" }) {
  const host = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | null>(null);
  const ready = useSignal(false);
  const live = liveDocument(tab.docId);

  useEffect(() => {
    let cancelled = false;
    const started = performance.now();
    // The editor takes focus when it is ready only if the person has not moved it meanwhile
    // (to the tree, the palette, another field): a slow first sync must not steal it back.
    const focusedAtStart = document.activeElement;
    let lastEdit = agentEdits.peek()[tab.docId]?.at ?? 0;
    let unsubscribe: (() => void) | null = null;
    let release: (() => void) | null = null;
    void live.whenSynced().then(() => {
      if (cancelled || !host.current) return;
      const view = new EditorView({
        parent: host.current,
        // The binding syncs changes from here on; the editor starts from the text as it is.
        state: EditorState.create({
          doc: live.text.toString(),
          extensions: editorExtensions(live, mode, [
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            const local = update.transactions.some((tr) => tr.docChanged && tr.annotation(ySyncAnnotation) === undefined);
            if (local) markDirty(tab.docId, true);
          }),
          uploadOnDrop(() => windowState.peek().tabs.find((open) => open.docId === tab.docId)?.path ?? tab.path),
          EditorView.domEventHandlers({
            scroll: (_event, editor) => {
              rememberLine(tab.docId, topLine(editor));
            },
          }),
          ]),
        }),
      });
      viewRef.current = view;
      ready.value = true;
      metrics.firstRender(mode, tab.docId, performance.now() - started);
      const pending = pendingLines.peek()[tab.docId];
      if (pending) {
        const rest = { ...pendingLines.peek() };
        delete rest[tab.docId];
        pendingLines.value = rest;
        requestAnimationFrame(() => goToLine(view, pending, true));
      } else {
        const line = rememberedLine(tab.docId);
        if (line && line > 1) requestAnimationFrame(() => goToLine(view, line, false));
      }
      if (mayTakeFocus(focusedAtStart, tab.docId)) view.focus();
      release = onLeave(() => rememberLine(tab.docId, topLine(view)));
      unsubscribe = agentEdits.subscribe((edits) => {
        const edit = edits[tab.docId];
        if (!edit || edit.at <= lastEdit) return;
        lastEdit = edit.at;
        view.plugin(flashTracker)?.attribute(edit.author, edit.from);
      });
    });
    return () => {
      cancelled = true;
      release?.();
      unsubscribe?.();
      viewRef.current?.destroy();
      viewRef.current = null;
    };
  }, [tab.docId, mode]);

  useEffect(() => {
    const line = pendingLines.value[tab.docId];
    const view = viewRef.current;
    if (!line || !view) return;
    const rest = { ...pendingLines.value };
    delete rest[tab.docId];
    pendingLines.value = rest;
    goToLine(view, line, true);
  }, [pendingLines.value[tab.docId]]);

  return (
    <div class={`editor-pane editor-${mode}`} data-view={mode}>
      {ready.value ? null : (
        <div class="loading-doc">
          <span class="spinner" /> Connecting to the live document…
        </div>
      )}
      <div class="editor-host" ref={host} />
    </div>
  );
}
