// Pictures (and other files) dropped or pasted into the editor: each is uploaded beside the note
// (the server picks the folder, `assets/` by default) and the Markdown link the server answers is
// inserted where it was dropped, or at the cursor for a paste. A note dragged from the file tree
// drops as a relative Markdown link to it.

import { EditorView } from "@codemirror/view";
import { ApiError } from "../api";
import { filesApi } from "../files/filesApi";
import { DRAG_TYPE } from "../files/tree";
import { dirName, relativePath, title } from "../paths";
import { toast } from "../state";

async function insertUploads(view: EditorView, note: string, picked: File[], at: number): Promise<void> {
  const links: string[] = [];
  for (const file of picked) {
    try {
      const done = await filesApi.uploadBeside(note, file.name || "pasted.png", file);
      if (done.link) links.push(done.link);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) {
        toast(`Could not upload ${file.name}: ${error instanceof Error ? error.message : String(error)}`, "error");
      }
    }
  }
  if (links.length === 0) return;
  const pos = Math.min(at, view.state.doc.length);
  const text = links.join("\n");
  view.dispatch({ changes: { from: pos, insert: text }, selection: { anchor: pos + text.length }, userEvent: "input.drop" });
  view.focus();
}

function insertLink(view: EditorView, note: string, target: string, at: number): void {
  const relative = relativePath(dirName(note), target);
  const href = /[\s()]/.test(relative) ? `<${relative}>` : relative;
  const text = `[${title(target)}](${href})`;
  view.dispatch({ changes: { from: at, insert: text }, selection: { anchor: at + text.length }, userEvent: "input.drop" });
  view.focus();
}

/** The editor extension; `notePath` gives the note's path now (it follows a rename). */
export function uploadOnDrop(notePath: () => string) {
  return EditorView.domEventHandlers({
    drop(event, view) {
      const picked = [...(event.dataTransfer?.files ?? [])];
      const dragged = event.dataTransfer?.getData(DRAG_TYPE) ?? "";
      if (picked.length === 0 && !dragged) return false;
      event.preventDefault();
      const at = view.posAtCoords({ x: event.clientX, y: event.clientY }) ?? view.state.selection.main.head;
      if (dragged) insertLink(view, notePath(), dragged, at);
      else void insertUploads(view, notePath(), picked, at);
      return true;
    },
    paste(event, view) {
      const picked = [...(event.clipboardData?.files ?? [])];
      if (picked.length === 0) return false;
      event.preventDefault();
      void insertUploads(view, notePath(), picked, view.state.selection.main.head);
      return true;
    },
  });
}
