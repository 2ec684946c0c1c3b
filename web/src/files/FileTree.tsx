// The sidebar's file tree: workspaces, folders and notes, live from the tree events. A row is
// one focus stop of a roving tabindex that follows real DOM focus; the twisty folds, the row
// selects (a note opens). Keys: arrows, Home/End, Enter, F2 rename, Delete, Ctrl/Cmd+D
// duplicate, Ctrl/Cmd+C copy path, Alt+N new note, Alt+Shift+N new folder, Shift+F10 or the
// menu key for the context menu. Rows drag onto folders to move; files dropped on a folder upload.

import { signal, useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import type { FileEntry } from "../api";
import { Icon } from "../components/Icons";
import { Highlight } from "../components/SearchPanel";
import { dirName, title } from "../paths";
import { activeTab, files, filesLoaded, openPath } from "../state";
import { askDelete, copyPath, duplicate, fileDialog, finishRename, moveInto, newFolder, newNote, renaming, uploadInto } from "./actions";
import { ContextMenu, openMenu, type RowKind } from "./ContextMenu";
import { buildTree, collapsed, DRAG_TYPE, focusRow, loadWorkspaces, toggleFolder, tree, workspaces, type TreeFolder } from "./tree";

/** The row that holds the tree's one tab stop (the last focused). */
const focusedPath = signal<string | null>(null);
/** The folder a drag hovers over. */
const dropTarget = signal<string | null>(null);

const rowSelector = '[role="treeitem"]';

function rows(from: HTMLElement): HTMLElement[] {
  return [...(from.closest(".tree")?.querySelectorAll<HTMLElement>(rowSelector) ?? [])];
}

function step(row: HTMLElement, by: number | "first" | "last"): void {
  const all = rows(row);
  const index = all.indexOf(row);
  const next = by === "first" ? all[0] : by === "last" ? all[all.length - 1] : all[index + by];
  next?.focus();
}

function parentRow(row: HTMLElement): HTMLElement | null {
  return row.parentElement?.parentElement?.closest("li")?.querySelector<HTMLElement>(`:scope > ${rowSelector}`) ?? null;
}

const folderOf = (path: string, kind: RowKind): string => (kind === "file" ? dirName(path) : path);
const mod = (event: KeyboardEvent) => event.ctrlKey || event.metaKey;

function onRowKey(event: KeyboardEvent, path: string, kind: RowKind, open: boolean): void {
  if (event.target !== event.currentTarget) return;
  const row = event.currentTarget as HTMLElement;
  const isFolder = kind !== "file";
  const key = event.key;
  let handled = true;
  if (key === "ArrowDown") step(row, 1);
  else if (key === "ArrowUp") step(row, -1);
  else if (key === "Home") step(row, "first");
  else if (key === "End") step(row, "last");
  else if (key === "ArrowRight" && isFolder) {
    if (open) step(row, 1);
    else toggleFolder(path, true);
  } else if (key === "ArrowLeft") {
    if (isFolder && open) toggleFolder(path, false);
    else parentRow(row)?.focus();
  } else if (key === "Enter") {
    if (isFolder) toggleFolder(path);
    else void openPath(path);
  } else if (key === "F2" && kind !== "root") renaming.value = { path, thenOpen: false };
  else if ((key === "Delete" || (key === "Backspace" && event.metaKey)) && kind !== "root") askDelete(path, isFolder);
  else if (mod(event) && key.toLowerCase() === "d" && kind !== "root") void duplicate(path, isFolder);
  else if (mod(event) && key.toLowerCase() === "c" && !window.getSelection()?.toString()) void copyPath(path);
  else if (event.altKey && event.code === "KeyN") {
    if (event.shiftKey) void newFolder(folderOf(path, kind));
    else void newNote(folderOf(path, kind));
  } else if (key === "ContextMenu" || (key === "F10" && event.shiftKey)) {
    const box = row.getBoundingClientRect();
    openMenu({ path, kind, x: box.left + 24, y: box.bottom });
  } else handled = false;
  if (handled) {
    event.preventDefault();
    event.stopPropagation();
  }
}

/** What the person has typed into the inline rename field, for the rename under way (`of`, the
 * `renaming` value). It lives outside the field so that a redraw that makes the field again
 * gives back the typed name, not the old one. */
const draft = signal<{ of: object; name: string } | null>(null);

function NameField({ path, isFolder }: { path: string; isFolder: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  const initial = isFolder ? (path.split("/").pop() ?? "") : title(path);
  const kept = draft.peek();
  const asked = renaming.peek();
  const start = kept && kept.of === asked ? kept.name : initial;
  useLayoutEffect(() => {
    // A layout effect runs in the same task as the render that made the field, so nothing typed
    // can land before it (a plain effect ran after paint and reset a name typed meanwhile). The
    // field is uncontrolled: its value is set once here, never by a later render.
    const field = input.current;
    if (!field) return;
    field.value = start;
    field.focus();
    if (start === initial) field.select();
  }, []);
  const end = (name: string | null) => {
    draft.value = null;
    void finishRename(path, name, isFolder).then(focusRow);
  };
  return (
    <input
      ref={input}
      class="tree-name"
      aria-label={isFolder ? "Folder name" : "Note name"}
      spellcheck={false}
      onInput={(event) => {
        if (asked) draft.value = { of: asked, name: event.currentTarget.value };
      }}
      onKeyDown={(event) => {
        event.stopPropagation();
        if (event.key === "Enter") end(event.currentTarget.value);
        else if (event.key === "Escape") end(null);
      }}
      onBlur={(event) => {
        // A field taken out by a redraw blurs too: only a person leaving it ends the rename.
        if (event.currentTarget.isConnected) end(event.currentTarget.value);
      }}
      onClick={(event) => event.stopPropagation()}
    />
  );
}

function dropHandlers(folder: string) {
  const accepts = (event: DragEvent) => {
    const types = event.dataTransfer?.types ?? [];
    return types.includes(DRAG_TYPE) || types.includes("Files");
  };
  return {
    onDragOver: (event: DragEvent) => {
      if (!accepts(event)) return;
      event.preventDefault();
      event.stopPropagation();
      if (event.dataTransfer) event.dataTransfer.dropEffect = event.dataTransfer.types.includes("Files") ? "copy" : "move";
      dropTarget.value = folder;
    },
    onDragLeave: () => {
      if (dropTarget.peek() === folder) dropTarget.value = null;
    },
    onDrop: (event: DragEvent) => {
      if (!accepts(event)) return;
      event.preventDefault();
      event.stopPropagation();
      dropTarget.value = null;
      const dragged = event.dataTransfer?.getData(DRAG_TYPE);
      if (dragged) void moveInto(dragged, folder);
      else if (event.dataTransfer?.files.length) void uploadInto(folder, [...event.dataTransfer.files]);
    },
  };
}

interface RowProps {
  path: string;
  kind: RowKind;
  depth: number;
  open: boolean;
  tabStop: string | null;
  children: JSX.Element;
}

function Row({ path, kind, depth, open, tabStop, children }: RowProps) {
  const isFolder = kind !== "file";
  const active = !isFolder && activeTab.value?.path === path;
  const classes = ["tree-row", isFolder ? "tree-folder" : "tree-file", kind === "root" ? "tree-root" : ""];
  if (active) classes.push("active");
  if (isFolder && dropTarget.value === path) classes.push("drop-target");
  return (
    <div
      role="treeitem"
      class={classes.join(" ")}
      style={{ paddingLeft: `${8 + depth * 14}px` }}
      tabIndex={tabStop === path ? 0 : -1}
      aria-level={depth + 1}
      aria-expanded={isFolder ? open : undefined}
      aria-selected={active}
      title={path}
      data-path={path}
      data-kind={kind}
      draggable={kind !== "root" && renaming.value?.path !== path}
      onFocus={(event) => {
        if (event.target === event.currentTarget) focusedPath.value = path;
      }}
      onClick={() => {
        if (!isFolder && renaming.peek()?.path !== path) void openPath(path);
      }}
      onDblClick={() => isFolder && toggleFolder(path)}
      onKeyDown={(event) => onRowKey(event, path, kind, open)}
      onContextMenu={(event) => {
        event.preventDefault();
        event.currentTarget.focus();
        openMenu({ path, kind, x: event.clientX, y: event.clientY });
      }}
      onDragStart={(event) => {
        event.dataTransfer?.setData(DRAG_TYPE, path);
        event.dataTransfer?.setData("text/plain", path);
        if (event.dataTransfer) event.dataTransfer.effectAllowed = "copyMove";
      }}
      onDragEnd={() => (dropTarget.value = null)}
      {...dropHandlers(folderOf(path, kind))}
    >
      {isFolder ? (
        <span
          class="tree-twisty"
          onClick={(event) => {
            event.stopPropagation();
            toggleFolder(path);
          }}
          aria-hidden="true"
        >
          <Icon name="chevron" size={12} class={`tree-chevron ${open ? "open" : ""}`} />
        </span>
      ) : (
        <span class="tree-twisty" aria-hidden="true" />
      )}
      {children}
    </div>
  );
}

function FolderNode({ folder, depth, query, tabStop }: { folder: TreeFolder; depth: number; query: string; tabStop: string | null }) {
  const open = query !== "" || !collapsed.value.has(folder.path);
  const naming = renaming.value?.path;
  const kind: RowKind = depth === 0 ? "root" : "folder";
  return (
    <li role="none">
      <Row path={folder.path} kind={kind} depth={depth} open={open} tabStop={tabStop}>
        <>
          {kind === "root" ? null : <Icon name="folder" size={14} class="tree-icon" />}
          {naming === folder.path ? <NameField path={folder.path} isFolder /> : <span class="tree-label">{folder.name}</span>}
        </>
      </Row>
      {open ? (
        <ul role="group">
          {folder.folders.map((child) => (
            <FolderNode key={child.path} folder={child} depth={depth + 1} query={query} tabStop={tabStop} />
          ))}
          {folder.files.map((file) => (
            <li key={file.path} role="none">
              <Row path={file.path} kind="file" depth={depth + 1} open={false} tabStop={tabStop}>
                <>
                  <Icon name="file" size={14} class="tree-icon" />
                  {naming === file.path ? (
                    <NameField path={file.path} isFolder={false} />
                  ) : (
                    <span class="tree-label">
                      <Highlight text={title(file.relPath.split("/").pop() ?? file.relPath)} query={query} />
                    </span>
                  )}
                </>
              </Row>
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** The paths of the rows showing, in order (the tab stop falls back to the first). */
function shownPaths(roots: TreeFolder[], query: string): string[] {
  const out: string[] = [];
  const walk = (folder: TreeFolder) => {
    out.push(folder.path);
    if (query === "" && collapsed.value.has(folder.path)) return;
    folder.folders.forEach(walk);
    folder.files.forEach((file) => out.push(file.path));
  };
  roots.forEach(walk);
  return out;
}

function visibleTree(query: string): TreeFolder[] {
  if (!query) return tree.value;
  const needle = query.toLowerCase();
  const hits: FileEntry[] = files.value.filter((file) => file.relPath.toLowerCase().includes(needle));
  return buildTree(hits, new Set(), []);
}

export function FileTree() {
  const filter = useSignal("");
  const query = filter.value.trim();
  useEffect(() => void loadWorkspaces(), []);
  const roots = visibleTree(query);
  const shown = shownPaths(roots, query);
  const focused = focusedPath.value;
  const tabStop = focused !== null && shown.includes(focused) ? focused : (shown[0] ?? null);
  const firstRoot = workspaces.value[0]?.path ?? roots[0]?.path ?? null;
  const matches = query ? files.value.filter((file) => file.relPath.toLowerCase().includes(query.toLowerCase())) : [];
  return (
    <section class="side-section side-files">
      <header class="side-heading">
        <span>Files</span>
        <span class="side-actions">
          <span class="side-count">{files.value.length || ""}</span>
          {firstRoot ? (
            <>
              <button class="side-action" title="New note" aria-label="New note" onClick={() => void newNote(firstRoot)}>
                <Icon name="plus" size={13} />
              </button>
              <button class="side-action" title="New folder" aria-label="New folder" onClick={() => void newFolder(firstRoot)}>
                <Icon name="folder" size={13} />
              </button>
            </>
          ) : null}
          <button class="side-action" title="Trash" aria-label="Trash" onClick={() => (fileDialog.value = { kind: "trash" })}>
            <Icon name="trash" size={13} />
          </button>
        </span>
      </header>
      <label class="side-filter">
        <Icon name="search" size={13} />
        <input
          type="text"
          placeholder="Filter files"
          value={filter.value}
          onInput={(event) => (filter.value = event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape") filter.value = "";
            if (event.key === "Enter" && matches.length === 1) void openPath(matches[0]!.path);
          }}
          aria-label="Filter files"
        />
      </label>
      <div class="tree scroll-quiet">
        {!filesLoaded.value ? (
          <p class="side-empty">Loading files…</p>
        ) : roots.length === 0 ? (
          <p class="side-empty">{query ? `No file matches “${query}”.` : "No Markdown files in the workspaces yet."}</p>
        ) : (
          <ul role="tree" aria-label="Workspace files">
            {roots.map((root) => (
              <FolderNode key={root.path} folder={root} depth={0} query={query} tabStop={tabStop} />
            ))}
          </ul>
        )}
      </div>
      <ContextMenu />
    </section>
  );
}
