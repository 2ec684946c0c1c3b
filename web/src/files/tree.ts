// The file tree's state, keyed by path: the workspaces, the Markdown files (the `files` signal
// every part of the window reads), the folders known beyond them (made here or seen in `tree`
// events, empty ones too), and which folders are folded. Tree events patch it in place, a burst
// coalesced into one update; a `rescan` lists the workspace again.

import { batch, computed, signal } from "@preact/signals";
import type { FileEntry } from "../api";
import { baseName, isMarkdown } from "../paths";
import { claimFocus } from "../focusClaims";
import { files, refreshFiles, sidebarOpen } from "../state";
import type { WindowEvent } from "../events";
import { filesApi, type TreeChange, type TreeData, type Workspace } from "./filesApi";

export interface TreeFolder {
  /** The folder's absolute path: its key everywhere (rows, fold state, events). */
  path: string;
  name: string;
  workspace: string;
  folders: TreeFolder[];
  files: FileEntry[];
}

export const workspaces = signal<Workspace[]>([]);
/** Folders known beyond the ones holding a Markdown file (absolute paths). */
export const knownFolders = signal<ReadonlySet<string>>(new Set());
export const collapsed = signal<ReadonlySet<string>>(loadCollapsed());

/** The drag data type of a tree row (its absolute path). */
export const DRAG_TYPE = "application/x-quire-path";

/** How long a burst of tree events may gather before the tree is patched once. */
const COALESCE_MS = 60;

function loadCollapsed(): Set<string> {
  try {
    return new Set(JSON.parse(localStorage.getItem("quire.collapsed") ?? "[]") as string[]);
  } catch {
    return new Set();
  }
}

function storeCollapsed(next: ReadonlySet<string>): void {
  collapsed.value = next;
  try {
    localStorage.setItem("quire.collapsed", JSON.stringify([...next]));
  } catch {
    // Without storage the tree just forgets what was folded.
  }
}

export function toggleFolder(path: string, open?: boolean): void {
  const next = new Set(collapsed.value);
  const shut = open === undefined ? !next.has(path) : !open;
  if (shut === next.has(path)) return;
  if (shut) next.add(path);
  else next.delete(path);
  storeCollapsed(next);
}

/** Unfold every folder above `path`, so its row shows. */
export function unfoldTo(path: string): void {
  const next = new Set(collapsed.value);
  let changed = false;
  for (const folder of next) {
    if (path.startsWith(`${folder}/`)) {
      next.delete(folder);
      changed = true;
    }
  }
  if (changed) storeCollapsed(next);
}

export async function loadWorkspaces(): Promise<void> {
  try {
    workspaces.value = await filesApi.workspaces();
  } catch {
    // The tree falls back to the workspaces its files name.
  }
}

export const isUnder = (path: string, folder: string): boolean => path === folder || path.startsWith(`${folder}/`);

/** The served folder holding `path` (the longest that does). */
export function workspaceOf(path: string): string | null {
  const roots = new Set([...workspaces.peek().map((item) => item.path), ...files.peek().map((file) => file.workspace)]);
  return [...roots].filter((root) => isUnder(path, root)).sort((a, b) => b.length - a.length)[0] ?? null;
}

/** `path` as the person reads it: relative to its workspace (the workspace's name first when
 * the server serves more than one). */
export function shownPath(path: string): string {
  const workspace = workspaceOf(path);
  if (!workspace || workspace === path) return path;
  const relative = path.slice(workspace.length + 1);
  return workspaces.peek().length > 1 ? `${baseName(workspace)}/${relative}` : relative;
}

function entryAt(path: string, workspace: string): FileEntry {
  return { path, workspace, relPath: path.slice(workspace.length + 1), mtimeMs: Date.now(), size: 0 };
}

const moved = (path: string, from: string, to: string): string => to + path.slice(from.length);

class Patch {
  readonly files: Map<string, FileEntry>;
  readonly folders: Set<string>;
  readonly collapsed: Set<string>;
  /** A folder appeared whose files may not all have been named. */
  unlisted = false;

  constructor() {
    this.files = new Map(files.peek().map((entry) => [entry.path, entry]));
    this.folders = new Set(knownFolders.peek());
    this.collapsed = new Set(collapsed.peek());
  }

  apply(change: TreeChange, workspace: string): void {
    switch (change.action) {
      case "created":
        if (change.isFolder) {
          // A folder new to the tree may have come with files the watcher never names one by
          // one (moved in, or written at once): list the workspace again.
          if (!this.folders.has(change.path) && ![...this.files.keys()].some((key) => isUnder(key, change.path))) {
            this.unlisted = true;
          }
          this.folders.add(change.path);
        } else if (isMarkdown(change.path) && !this.files.has(change.path)) {
          this.files.set(change.path, entryAt(change.path, workspace));
        }
        break;
      case "deleted":
        this.remove(change.path);
        break;
      case "moved":
        if (change.to) this.move(change.path, change.to);
        break;
      default:
        break;
    }
  }

  private remove(path: string): void {
    for (const key of [...this.files.keys()]) if (isUnder(key, path)) this.files.delete(key);
    for (const key of [...this.folders]) if (isUnder(key, path)) this.folders.delete(key);
  }

  private move(from: string, to: string): void {
    const workspace = workspaceOf(to);
    if (!workspace) {
      this.remove(from);
      return;
    }
    for (const [key, entry] of [...this.files]) {
      if (!isUnder(key, from)) continue;
      this.files.delete(key);
      const path = moved(key, from, to);
      if (isMarkdown(path)) this.files.set(path, { ...entry, ...entryAt(path, workspace), size: entry.size });
    }
    for (const key of [...this.folders]) {
      if (!isUnder(key, from)) continue;
      this.folders.delete(key);
      this.folders.add(moved(key, from, to));
    }
    for (const key of [...this.collapsed]) {
      if (!isUnder(key, from)) continue;
      this.collapsed.delete(key);
      this.collapsed.add(moved(key, from, to));
    }
    // A folder moved with nothing Markdown inside still shows.
    if (!isMarkdown(to) && ![...this.files.keys()].some((key) => isUnder(key, to))) this.folders.add(to);
  }

  commit(): void {
    batch(() => {
      files.value = [...this.files.values()];
      knownFolders.value = this.folders;
      if (this.collapsed.size !== collapsed.peek().size || [...this.collapsed].some((key) => !collapsed.peek().has(key))) {
        storeCollapsed(this.collapsed);
      }
    });
  }
}

/** Patch the tree with `changes` in `workspace` now (the window's own operations do this at
 * once; their events, arriving later, then change nothing). */
export function applyChanges(workspace: string, changes: readonly TreeChange[]): void {
  const patch = new Patch();
  for (const change of changes) patch.apply(change, workspace);
  patch.commit();
}

let pending: TreeData[] = [];
let timer: number | undefined;

function flush(): void {
  timer = undefined;
  const batchOf = pending;
  pending = [];
  const rescanned = batchOf.filter((data) => data.rescan).map((data) => data.workspace);
  if (rescanned.length) {
    // Too much changed to name: the listing is the truth again, and a folder known only from
    // events may be gone.
    const before = folderPaths(files.peek(), knownFolders.peek());
    knownFolders.value = new Set([...knownFolders.peek()].filter((path) => !rescanned.some((root) => isUnder(path, root))));
    void refreshFiles((entries) => foldNewFolders(entries, before));
    return;
  }
  const patch = new Patch();
  for (const data of batchOf) for (const change of data.changes) patch.apply(change, data.workspace);
  patch.commit();
  if (patch.unlisted) void refreshFiles();
}

/** Every folder holding one of `entries` (each folder above it too), and the `known` ones. */
function folderPaths(entries: readonly FileEntry[], known: ReadonlySet<string>): Set<string> {
  const found = new Set(known);
  for (const entry of entries) {
    let path = entry.workspace;
    for (const part of entry.relPath.split("/").slice(0, -1)) {
      path = `${path}/${part}`;
      found.add(path);
    }
  }
  return found;
}

/** A rescan (a checkout, an untar: too much to name) may bring thousands of notes: the folders
 * it brought start folded, so the tree grows by a row per new folder, never by thousands of rows
 * at once (which froze the tab for seconds). */
function foldNewFolders(entries: readonly FileEntry[], before: ReadonlySet<string>): void {
  const fresh = new Set<string>();
  for (const entry of entries) {
    let path = entry.workspace;
    for (const part of entry.relPath.split("/").slice(0, -1)) {
      path = `${path}/${part}`;
      if (!before.has(path)) {
        fresh.add(path);
        break;
      }
    }
  }
  if (fresh.size) storeCollapsed(new Set([...collapsed.peek(), ...fresh]));
}

/** The window's event channel calls this with every event: `tree` events patch the tree. */
export function handleTreeEvent(event: WindowEvent): void {
  if (event.kind !== "tree") return;
  const data = event.data as unknown as TreeData;
  if (typeof data.workspace !== "string" || !Array.isArray(data.changes)) return;
  pending.push(data);
  timer ??= window.setTimeout(flush, COALESCE_MS);
}

/** The tree of the workspaces: folders first, then notes, each sorted by name. */
export const tree = computed<TreeFolder[]>(() => buildTree(files.value, knownFolders.value, workspaces.value));

export function buildTree(entries: FileEntry[], extra: ReadonlySet<string>, served: Workspace[]): TreeFolder[] {
  const roots = new Map<string, TreeFolder>();
  const folders = new Map<string, TreeFolder>();
  const rootOf = (workspace: string): TreeFolder => {
    let root = roots.get(workspace);
    if (!root) {
      root = { path: workspace, name: baseName(workspace), workspace, folders: [], files: [] };
      roots.set(workspace, root);
      folders.set(workspace, root);
    }
    return root;
  };
  const folderAt = (workspace: string, relative: string[]): TreeFolder => {
    let folder = rootOf(workspace);
    for (const part of relative) {
      const path = `${folder.path}/${part}`;
      let next = folders.get(path);
      if (!next) {
        next = { path, name: part, workspace, folders: [], files: [] };
        folders.set(path, next);
        folder.folders.push(next);
      }
      folder = next;
    }
    return folder;
  };
  for (const item of served) rootOf(item.path);
  for (const entry of entries) folderAt(entry.workspace, entry.relPath.split("/").slice(0, -1)).files.push(entry);
  const names = [...roots.keys()].sort((a, b) => b.length - a.length);
  for (const path of extra) {
    const workspace = names.find((root) => path.startsWith(`${root}/`));
    if (workspace) folderAt(workspace, path.slice(workspace.length + 1).split("/"));
  }
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, undefined, { numeric: true });
  const sort = (folder: TreeFolder): TreeFolder => {
    folder.folders.sort(byName);
    folder.files.sort((a, b) => a.relPath.localeCompare(b.relPath, undefined, { numeric: true }));
    folder.folders.forEach(sort);
    return folder;
  };
  return [...roots.values()].map(sort);
}

/** Focus the tree row of `path` once the tree has drawn it (on purpose: no editor takes it). */
export function focusRow(path: string): void {
  claimFocus();
  requestAnimationFrame(() => {
    document.querySelector<HTMLElement>(`.tree [role="treeitem"][data-path="${CSS.escape(path)}"]`)?.focus();
  });
}

/** Show `path`'s row: the sidebar open, its folders unfolded, the row focused. */
export function revealInTree(path: string): void {
  sidebarOpen.value = true;
  unfoldTo(path);
  focusRow(path);
}
