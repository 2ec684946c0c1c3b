// The sidebar: search, recent documents and the workspaces' file tree with its filter.

import { FileTree } from "../files/FileTree";
import { locate, title } from "../paths";
import { activeTab, files, openPath, recents, sidebarOpen } from "../state";
import { Icon } from "./Icons";
import { SearchPanel } from "./SearchPanel";

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
