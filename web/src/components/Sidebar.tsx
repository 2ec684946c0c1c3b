// The sidebar: search, recent documents and the workspaces' file tree with its filter.

import { useComputed, useSignal } from "@preact/signals";
import type { FileEntry } from "../api";
import { baseName, locate, title } from "../paths";
import { activeTab, files, filesLoaded, openPath, recents, sidebarOpen } from "../state";
import { Icon } from "./Icons";
import { Highlight, SearchPanel } from "./SearchPanel";

interface TreeFolder {
  key: string;
  name: string;
  folders: TreeFolder[];
  files: FileEntry[];
}

function buildTree(entries: FileEntry[]): TreeFolder[] {
  const roots = new Map<string, TreeFolder>();
  for (const entry of entries) {
    let root = roots.get(entry.workspace);
    if (!root) {
      root = { key: entry.workspace, name: baseName(entry.workspace), folders: [], files: [] };
      roots.set(entry.workspace, root);
    }
    const parts = entry.relPath.split("/");
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.find((child) => child.name === part);
      if (!next) {
        next = { key: `${folder.key}/${part}`, name: part, folders: [], files: [] };
        folder.folders.push(next);
      }
      folder = next;
    }
    folder.files.push(entry);
  }
  const sort = (folder: TreeFolder): TreeFolder => {
    folder.folders.sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
    folder.files.sort((a, b) => a.relPath.localeCompare(b.relPath, undefined, { numeric: true }));
    folder.folders.forEach(sort);
    return folder;
  };
  return [...roots.values()].map(sort);
}

function loadCollapsed(): Set<string> {
  try {
    return new Set(JSON.parse(localStorage.getItem("quire.collapsed") ?? "[]") as string[]);
  } catch {
    return new Set();
  }
}

function FolderNode({
  folder,
  depth,
  collapsed,
  toggle,
  query,
}: {
  folder: TreeFolder;
  depth: number;
  collapsed: Set<string>;
  toggle: (key: string) => void;
  query: string;
}) {
  const open = query !== "" || !collapsed.has(folder.key);
  const active = activeTab.value?.path;
  return (
    <li role="treeitem" aria-expanded={open}>
      <button
        class={`tree-row tree-folder ${depth === 0 ? "tree-root" : ""}`}
        style={{ paddingLeft: `${8 + depth * 14}px` }}
        onClick={() => toggle(folder.key)}
        title={folder.key}
      >
        <Icon name="chevron" size={12} class={`tree-chevron ${open ? "open" : ""}`} />
        {depth === 0 ? null : <Icon name="folder" size={14} class="tree-icon" />}
        <span class="tree-label">{folder.name}</span>
      </button>
      {open ? (
        <ul role="group">
          {folder.folders.map((child) => (
            <FolderNode key={child.key} folder={child} depth={depth + 1} collapsed={collapsed} toggle={toggle} query={query} />
          ))}
          {folder.files.map((file) => (
            <li key={file.path} role="treeitem">
              <button
                class={`tree-row tree-file ${file.path === active ? "active" : ""}`}
                style={{ paddingLeft: `${22 + depth * 14}px` }}
                onClick={() => void openPath(file.path)}
                title={file.path}
                data-path={file.path}
              >
                <Icon name="file" size={14} class="tree-icon" />
                <span class="tree-label">
                  <Highlight text={title(file.relPath.split("/").pop() ?? file.relPath)} query={query} />
                </span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function FileTree() {
  const filter = useSignal("");
  const collapsed = useSignal<Set<string>>(loadCollapsed());
  const query = filter.value.trim();
  const visible = useComputed(() => {
    const needle = filter.value.trim().toLowerCase();
    return needle ? files.value.filter((file) => file.relPath.toLowerCase().includes(needle)) : files.value;
  });
  const tree = useComputed(() => buildTree(visible.value));
  const toggle = (key: string) => {
    const next = new Set(collapsed.value);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    collapsed.value = next;
    try {
      localStorage.setItem("quire.collapsed", JSON.stringify([...next]));
    } catch {
      // Without storage the tree just forgets what was folded.
    }
  };
  return (
    <section class="side-section side-files">
      <header class="side-heading">
        <span>Files</span>
        <span class="side-count">{files.value.length || ""}</span>
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
            if (event.key === "Enter" && visible.value.length === 1) void openPath(visible.value[0]!.path);
          }}
          aria-label="Filter files"
        />
      </label>
      <div class="tree scroll-quiet">
        {!filesLoaded.value ? (
          <p class="side-empty">Loading files…</p>
        ) : tree.value.length === 0 ? (
          <p class="side-empty">{query ? `No file matches “${query}”.` : "No Markdown files in the workspaces yet."}</p>
        ) : (
          <ul role="tree" aria-label="Workspace files">
            {tree.value.map((root) => (
              <FolderNode key={root.key} folder={root} depth={0} collapsed={collapsed.value} toggle={toggle} query={query} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function Recents() {
  const active = activeTab.value?.path;
  const items = recents.value.slice(0, 6);
  if (items.length === 0) return null;
  return (
    <section class="side-section side-recents">
      <header class="side-heading">
        <span>Recent</span>
      </header>
      <ul class="recent-list">
        {items.map((item) => {
          const where = locate(item.path, files.value);
          return (
            <li key={item.path}>
              <button
                class={`tree-row recent-row ${item.path === active ? "active" : ""}`}
                onClick={() => void openPath(item.path)}
                title={item.path}
              >
                <Icon name="clock" size={13} class="tree-icon" />
                <span class="tree-label">{title(item.fileName || item.path)}</span>
                <span class="row-hint">{where.folders[where.folders.length - 1] ?? where.workspace ?? ""}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export function Sidebar() {
  return (
    <>
      <div class={`sidebar-scrim ${sidebarOpen.value ? "show" : ""}`} onClick={() => (sidebarOpen.value = false)} />
      <aside class={`sidebar ${sidebarOpen.value ? "open" : ""}`} aria-label="Files and search">
        <div class="brand">
          <svg class="brand-mark" viewBox="0 0 32 32" width="20" height="20" aria-hidden="true">
            <rect width="32" height="32" rx="8" fill="var(--accent)" />
            <path
              d="M9 8.5h10.5a3.5 3.5 0 0 1 3.5 3.5v11.5H12.5A3.5 3.5 0 0 1 9 20z"
              fill="none"
              stroke="var(--on-accent)"
              stroke-width="2.2"
              stroke-linejoin="round"
            />
            <path d="M13 13h6M13 17h4" stroke="var(--on-accent)" stroke-width="2.2" stroke-linecap="round" />
          </svg>
          <span class="brand-name">Quire</span>
          <button class="icon-button brand-close" onClick={() => (sidebarOpen.value = false)} title="Hide sidebar">
            <Icon name="sidebar" />
          </button>
        </div>
        <SearchPanel />
        <Recents />
        <FileTree />
      </aside>
    </>
  );
}
