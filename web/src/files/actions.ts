// What the person does to files from the tree: new note or folder, rename and move (with the
// links dialog), duplicate, delete (confirmed, with Undo), restore from the trash, upload,
// download, copy the path, new chat here. Each calls the API once, patches the tree at once, and
// says what happened in a toast; the server's tree events then change nothing more.

import { signal } from "@preact/signals";
import { ApiError } from "../api";
import { openChats } from "../chat/chatState";
import { chatApi } from "../chat/chatApi";
import { copyText } from "../clipboard";
import type { WindowEvent } from "../events";
import { baseName, dirName, isMarkdown } from "../paths";
import { files, openPath, refreshFiles, refreshRecents, toast } from "../state";
import { filesApi, type LinkUpdates } from "./filesApi";
import { applyChanges, isUnder, knownFolders, shownPath, toggleFolder, unfoldTo, workspaceOf } from "./tree";

/** What the file dialogs show: a delete to confirm, a move's link updates, or the trash. */
export type FileDialog =
  | { kind: "delete"; path: string; isFolder: boolean; answer: (yes: boolean) => void }
  | { kind: "links"; updates: LinkUpdates; answer: (choice: LinkChoice) => void }
  | { kind: "trash" };
export type LinkChoice = "update" | "keep" | "cancel";

export const fileDialog = signal<FileDialog | null>(null);

/** Close the open file dialog as its Cancel would (Escape from anywhere). */
export function closeFileDialog(): void {
  const open = fileDialog.peek();
  fileDialog.value = null;
  if (open?.kind === "links") open.answer("cancel");
  else if (open?.kind === "delete") open.answer(false);
}
/** The tree row showing a name field (a rename, or a note or folder just made: a new note
 * opens once it is named). */
export const renaming = signal<{ path: string; thenOpen: boolean; fresh?: boolean } | null>(null);

function fail(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) return;
  toast(error instanceof Error ? error.message : String(error), "error");
}

function taken(path: string): boolean {
  const lower = path.toLowerCase();
  return (
    files.peek().some((entry) => isUnder(entry.path.toLowerCase(), lower)) ||
    [...knownFolders.peek()].some((folder) => folder.toLowerCase() === lower)
  );
}

/** A free name in `folder`: `stem.ext`, else `stem 2.ext`, `stem 3.ext`… */
export function freeName(folder: string, stem: string, ext: string): string {
  for (let index = 1; ; index++) {
    const path = `${folder}/${stem}${index === 1 ? "" : ` ${index}`}${ext}`;
    if (!taken(path)) return path;
  }
}

function splitName(name: string): { stem: string; ext: string } {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? { stem: name.slice(0, dot), ext: name.slice(dot) } : { stem: name, ext: "" };
}

function changed(path: string, action: "created" | "deleted", isFolder: boolean): void {
  const workspace = workspaceOf(path);
  if (workspace) applyChanges(workspace, [{ action, path, isFolder, to: null }]);
}

/** Make a note in `folder` and show its name field, so the person names it at once. */
export async function newNote(folder: string): Promise<void> {
  try {
    const made = await filesApi.createNote(freeName(folder, "Untitled", ".md"));
    unfoldTo(made.path);
    toggleFolder(folder, true);
    changed(made.path, "created", false);
    renaming.value = { path: made.path, thenOpen: true, fresh: true };
  } catch (error) {
    fail(error);
  }
}

export async function newFolder(parent: string): Promise<void> {
  try {
    const made = await filesApi.createFolder(freeName(parent, "New folder", ""));
    toggleFolder(parent, true);
    changed(made.path, "created", true);
    renaming.value = { path: made.path, thenOpen: false, fresh: true };
  } catch (error) {
    fail(error);
  }
}

export async function newChatHere(folder: string): Promise<void> {
  try {
    const created = await chatApi.create(freeName(folder, "new-chat", ".md"), "New chat");
    await openChats(created.path);
  } catch (error) {
    fail(error);
  }
}

function askLinks(updates: LinkUpdates): Promise<LinkChoice> {
  return new Promise((resolve) => {
    fileDialog.value = { kind: "links", updates, answer: resolve };
  });
}

/** Rename or move `path` to `to`. When links name it, the dialog lists the notes they are in
 * and the person chooses to update them, move without, or stay. Returns where it went. */
export async function moveEntry(
  path: string,
  to: string,
  verb: "Renamed" | "Moved" | "Named" = "Moved",
): Promise<string | null> {
  if (to === path) return path;
  try {
    const updates = await filesApi.links(path, to);
    const choice = updates.notes.length === 0 ? "keep" : await askLinks(updates);
    if (choice === "cancel") return null;
    const done = await filesApi.move(path, to, choice === "update");
    const workspace = workspaceOf(done.path);
    if (workspace) applyChanges(workspace, [{ action: "moved", path: done.path, to: done.to, isFolder: done.isFolder }]);
    void refreshRecents();
    // A note or folder just made and named: its row says it all.
    if (verb === "Named") return done.to;
    const links = done.linksUpdated.length;
    const said = `${verb} ${baseName(done.path)} to ${verb === "Renamed" ? baseName(done.to) : shownPath(done.to)}`;
    toast(links ? `${said}; links updated in ${links} note${links === 1 ? "" : "s"}` : said, "success", {
      label: "Undo",
      run: () => void moveBack(done.to, done.path, choice === "update"),
    });
    return done.to;
  } catch (error) {
    fail(error);
    return null;
  }
}

async function moveBack(from: string, to: string, updateLinks: boolean): Promise<void> {
  try {
    const done = await filesApi.move(from, to, updateLinks);
    const workspace = workspaceOf(done.path);
    if (workspace) applyChanges(workspace, [{ action: "moved", path: done.path, to: done.to, isFolder: done.isFolder }]);
    toast(`Moved ${baseName(done.to)} back`, "success");
  } catch (error) {
    fail(error);
  }
}

/** The new full path of a rename of `path` to `name` (a note keeps its `.md` when the name has
 * no Markdown ending). */
export function renamedPath(path: string, name: string, isFolder: boolean): string {
  const clean = name.trim();
  const keep = !isFolder && isMarkdown(path) && !isMarkdown(clean) ? splitName(baseName(path)).ext : "";
  return `${dirName(path)}/${clean}${keep}`;
}

/** End the name field of `path`: rename it to `name` (unless blank or the same), then open a
 * note just made. Returns the path it has now. */
export async function finishRename(path: string, name: string | null, isFolder: boolean): Promise<string> {
  const asked = renaming.peek();
  if (asked?.path !== path) return path;
  renaming.value = null;
  const to = name?.trim() ? renamedPath(path, name, isFolder) : path;
  const now = to === path ? path : ((await moveEntry(path, to, asked.fresh ? "Named" : "Renamed")) ?? path);
  if (asked.thenOpen) void openPath(now, "edit");
  return now;
}

/** Move `path` into `folder` (a drop on a folder row). */
export async function moveInto(path: string, folder: string): Promise<void> {
  if (isUnder(folder, path) || dirName(path) === folder) return;
  const to = await moveEntry(path, `${folder}/${baseName(path)}`);
  if (to) toggleFolder(folder, true);
}

export function askDelete(path: string, isFolder: boolean): void {
  fileDialog.value = {
    kind: "delete",
    path,
    isFolder,
    answer: (yes) => {
      fileDialog.value = null;
      if (yes) void deleteEntry(path, isFolder);
    },
  };
}

async function deleteEntry(path: string, isFolder: boolean): Promise<void> {
  try {
    const done = await filesApi.delete(path);
    changed(done.path, "deleted", isFolder);
    toastDeleted(done.trashId, `Deleted ${baseName(done.path)}: it is in the trash for 30 days`);
  } catch (error) {
    fail(error);
  }
}

/** The trash entries this window has said were deleted: one toast per delete, whether the
 * answer to its own delete or the `deleted` event comes first. */
const toldDeleted = new Set<string>();

function toastDeleted(trashId: string, text: string): void {
  if (toldDeleted.has(trashId)) return;
  toldDeleted.add(trashId);
  toast(text, "info", { label: "Undo", run: () => void restore(trashId) });
}

/** The window's event channel calls this with every event: a `deleted` event (this window's
 * tabs of a deleted file were closed, by this window, another one or an agent) says so. */
export function handleDeletedEvent(event: WindowEvent): void {
  if (event.kind !== "deleted") return;
  const data = event.data as { path?: unknown; trashId?: unknown; paths?: unknown };
  if (typeof data.path !== "string" || typeof data.trashId !== "string") return;
  const closed = Array.isArray(data.paths) ? data.paths.length : 0;
  const tabs = closed === 1 ? "its tab was closed" : `${closed} tabs were closed`;
  toastDeleted(data.trashId, `${baseName(data.path)} was deleted (${tabs}): it is in the trash for 30 days`);
}

export async function restore(id: string): Promise<boolean> {
  try {
    const done = await filesApi.restore(id);
    await refreshFiles();
    if (!isMarkdown(done.path)) changed(done.path, "created", true);
    toast(`Restored ${baseName(done.path)}`, "success");
    return true;
  } catch (error) {
    fail(error);
    return false;
  }
}

export async function duplicate(path: string, isFolder: boolean): Promise<void> {
  const { stem, ext } = isFolder ? { stem: baseName(path), ext: "" } : splitName(baseName(path));
  try {
    const done = await filesApi.copy(path, freeName(dirName(path), `${stem} copy`, ext));
    if (isFolder) {
      changed(done.to, "created", true);
      await refreshFiles();
    } else {
      changed(done.to, "created", false);
    }
    toast(`Duplicated as ${baseName(done.to)}`, "success");
  } catch (error) {
    fail(error);
  }
}

export async function copyPath(path: string): Promise<void> {
  if (await copyText(path)) toast(`Copied ${path}`, "success");
  else toast("The browser refused the clipboard: select the path in the tooltip instead.", "error");
}

/** Download a file, or a folder as a zip, through the browser's own download. */
export function download(path: string): void {
  const link = document.createElement("a");
  link.href = filesApi.downloadUrl(path);
  link.download = baseName(path);
  document.body.append(link);
  link.click();
  link.remove();
}

/** Upload dropped or picked files into `folder`, each under its own name (never replacing). */
export async function uploadInto(folder: string, picked: readonly File[]): Promise<void> {
  let count = 0;
  for (const file of picked) {
    try {
      const done = await filesApi.uploadTo(`${folder}/${file.name}`, file);
      changed(done.path, "created", false);
      count++;
    } catch (error) {
      fail(error);
    }
  }
  if (count) {
    toggleFolder(folder, true);
    toast(`Uploaded ${count === 1 ? picked[0]!.name : `${count} files`} to ${baseName(folder)}`, "success");
  }
}
