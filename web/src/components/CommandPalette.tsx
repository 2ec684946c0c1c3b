// The command palette (Ctrl/Cmd+K): open a file by name, switch view, present, save, search
// the documents, reveal the open document in the file tree, open the settings. Quick open asks the server's index for titles and paths
// (ranked, recent documents first; the recent ones alone when nothing is typed); `>` shows only
// commands; "Search documents for …" lists the matching files with their snippets.

import { useSignal } from "@preact/signals";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { api, type SearchHit, type SearchPage } from "../api";
import { chatOpen, leaveChats, openChats } from "../chat/chatState";
import { openExportDialog } from "../exporting";
import { revealInTree } from "../files/tree";
import { historyOpen, toggleHistory } from "../history/historyState";
import { baseName, title } from "../paths";
import { plain } from "../snippets";
import {
  activeTab,
  closeTab,
  drawerOpen,
  openPath,
  paletteOpen,
  present,
  recents,
  refreshRecents,
  save,
  setView,
  settingsOpen,
  sidebarOpen,
  toast,
} from "../state";
import { Icon, type IconName } from "./Icons";
import { account, openTeamPage } from "../team/teamState";

interface Item {
  id: string;
  label: string;
  detail?: string;
  icon: IconName;
  keys?: string;
  run: () => void;
}

/** A subsequence match score (higher is better), or -1 when `query` is not in `text` in order. */
export function fuzzy(query: string, text: string): number {
  if (!query) return 0;
  const q = query.toLowerCase();
  const t = text.toLowerCase();
  const direct = t.indexOf(q);
  if (direct >= 0) return 1000 - direct - t.length / 100 + (direct === 0 || /[\s/_-]/.test(t[direct - 1] ?? "") ? 200 : 0);
  let score = 0;
  let last = -2;
  let position = 0;
  for (const char of q) {
    const found = t.indexOf(char, position);
    if (found < 0) return -1;
    score += found === last + 1 ? 8 : 1;
    if (found === 0 || /[\s/_-]/.test(t[found - 1] ?? "")) score += 6;
    last = found;
    position = found + 1;
  }
  return score - t.length / 100;
}

const TITLES_PAUSE_MS = 60;
const RECENT_SHOWN = 8;

/** `hits` with the recently opened documents first, each group in the server's order. */
export function recentFirst(hits: SearchHit[], recent: string[]): SearchHit[] {
  const rank = new Map(recent.map((path, index) => [path, index]));
  const seen = hits.filter((hit) => rank.has(hit.path)).sort((a, b) => rank.get(a.path)! - rank.get(b.path)!);
  return [...seen, ...hits.filter((hit) => !rank.has(hit.path))];
}

function fileItem(path: string, label: string, detail: string): Item {
  return { id: `file-${path}`, label, detail, icon: "file", run: () => void openPath(path) };
}

/** Show the sidebar and put the cursor in its search box. */
export function focusSearch(): void {
  sidebarOpen.value = true;
  window.setTimeout(() => window.dispatchEvent(new Event("quire:focus-search")), 0);
}

function commands(): Item[] {
  const tab = activeTab.value;
  const list: Item[] = [];
  if (tab) {
    list.push(
      { id: "view-read", label: "View: Read", icon: "read", keys: "", run: () => void setView(tab.docId, "read") },
      { id: "view-edit", label: "View: Edit", icon: "edit", run: () => void setView(tab.docId, "edit") },
      { id: "view-source", label: "View: Source", icon: "source", run: () => void setView(tab.docId, "source") },
      { id: "present", label: "Present this document", icon: "present", keys: "Esc leaves", run: () => void present() },
      { id: "save", label: "Save", icon: "save", keys: "Ctrl S", run: () => void save(tab) },
      { id: "export", label: "Export…", detail: "PDF, HTML, Word or EPUB", icon: "export", run: () => openExportDialog(tab.path) },
      {
        id: "history",
        label: historyOpen.value ? "Hide history" : "Show history",
        detail: "Commits, diffs, authors, restore",
        icon: "clock",
        run: toggleHistory,
      },
      { id: "reveal", label: "Reveal in file tree", icon: "target", run: () => revealInTree(tab.path) },
      { id: "close", label: "Close tab", icon: "x", run: () => void closeTab(tab.docId) },
    );
  }
  list.push(
    {
      id: "activity",
      label: drawerOpen.value ? "Hide agent activity" : "Show agent activity",
      icon: "activity",
      keys: "Ctrl B",
      run: () => (drawerOpen.value = !drawerOpen.value),
    },
    {
      id: "sidebar",
      label: sidebarOpen.value ? "Hide sidebar" : "Show sidebar",
      icon: "sidebar",
      run: () => (sidebarOpen.value = !sidebarOpen.value),
    },
  );
  list.push(
    {
      id: "search",
      label: "Search documents",
      icon: "search",
      keys: "Ctrl ⇧ F",
      run: focusSearch,
    },
    {
      id: "settings",
      label: "Settings: Connect an agent",
      icon: "settings",
      run: () => (settingsOpen.value = true),
    },
    ...(account.value?.mode === "multi"
      ? [{ id: "account", label: "Account: password and API tokens", icon: "settings" as const, run: () => openTeamPage("account") }]
      : []),
    ...(account.value?.admin
      ? [{ id: "admin", label: "Admin: accounts, grants and groups", icon: "settings" as const, run: () => openTeamPage("admin") }]
      : []),
    {
      id: "chats",
      label: chatOpen.value ? "Leave chats" : "Open chats",
      icon: "review",
      run: () => void (chatOpen.value ? leaveChats() : openChats()),
    },
  );
  return list;
}

export function CommandPalette() {
  const query = useSignal("");
  const selected = useSignal(0);
  const hits = useSignal<SearchPage | null>(null);
  const titles = useSignal<{ needle: string; hits: SearchHit[] } | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const open = paletteOpen.value;
  const typed = query.value.trim();
  const asked = typed.startsWith(">") ? "" : typed;

  useLayoutEffect(() => {
    if (open) {
      query.value = "";
      selected.value = 0;
      hits.value = null;
      titles.value = null;
      input.current?.focus();
      void refreshRecents();
    }
  }, [open]);

  useEffect(() => {
    if (!open || !asked) return;
    let current = true;
    const timer = window.setTimeout(() => {
      api
        .titles(asked, 40)
        .then((found) => {
          if (current) titles.value = { needle: asked, hits: found };
        })
        .catch((error: unknown) => {
          if (current) toast(error instanceof Error ? error.message : String(error), "error");
        });
    }, TITLES_PAUSE_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [open, asked]);

  useEffect(() => {
    list.current?.querySelector(".selected")?.scrollIntoView({ block: "nearest" });
  }, [selected.value]);

  if (!open) return null;
  const close = () => (paletteOpen.value = false);
  const text = query.value.trim();
  const onlyCommands = text.startsWith(">");
  const needle = onlyCommands ? text.slice(1).trim() : text;

  let items: Item[];
  if (hits.value) {
    items = hits.value.hits.map(
      (hit): Item => ({
        id: `hit-${hit.path}`,
        label: hit.title || title(hit.path),
        detail: `line ${hit.line} · ${plain(hit.snippet)}`,
        icon: "search",
        run: () => void openPath(hit.path, undefined, hit.line),
      }),
    );
  } else {
    const scoredCommands = commands()
      .map((item) => ({ item, score: fuzzy(needle, item.label) }))
      .filter((entry) => entry.score >= 0)
      .sort((a, b) => b.score - a.score)
      .map((entry) => entry.item);
    const recentPaths = recents.value.map((entry) => entry.path);
    let scoredFiles: Item[] = [];
    if (onlyCommands) scoredFiles = [];
    else if (!needle) {
      scoredFiles = recents.value
        .slice(0, RECENT_SHOWN)
        .map((entry) => fileItem(entry.path, title(entry.fileName || entry.path), `recent · ${baseName(entry.path)}`));
    } else if (titles.value?.needle === needle) {
      scoredFiles = recentFirst(titles.value.hits, recentPaths).map((hit) =>
        fileItem(hit.path, hit.title || title(hit.path), hit.relPath),
      );
    }
    items = [...scoredFiles, ...scoredCommands];
    if (needle && !onlyCommands) {
      items.push({
        id: "search-text",
        label: `Search documents for “${needle}”`,
        icon: "search",
        run: () => {
          void api
            .search(needle)
            .then((found) => {
              hits.value = found;
              selected.value = 0;
              paletteOpen.value = true;
              input.current?.focus();
            })
            .catch((error: unknown) => toast(error instanceof Error ? error.message : String(error), "error"));
        },
      });
    }
  }
  const current = Math.min(selected.value, Math.max(0, items.length - 1));
  const run = (item: Item | undefined) => {
    if (!item) return;
    if (item.id !== "search-text") close();
    // Anything but chats and settings shows the documents: leave chat mode for it.
    if (chatOpen.peek() && !["chats", "settings", "search-text"].includes(item.id)) void leaveChats(false);
    item.run();
  };

  return (
    <div class="palette-scrim" onMouseDown={(event) => event.target === event.currentTarget && close()}>
      <div class="palette" role="dialog" aria-label="Command palette" aria-modal="true">
        <label class="palette-input">
          <Icon name={hits.value ? "search" : "command"} />
          <input
            ref={input}
            type="text"
            value={query.value}
            placeholder={hits.value ? "Search results: pick one, or type to start over" : "Open a file, or type > for commands"}
            onInput={(event) => {
              query.value = event.currentTarget.value;
              selected.value = 0;
              hits.value = null;
            }}
            onKeyDown={(event) => {
              if (event.key === "ArrowDown") {
                event.preventDefault();
                selected.value = Math.min(items.length - 1, current + 1);
              } else if (event.key === "ArrowUp") {
                event.preventDefault();
                selected.value = Math.max(0, current - 1);
              } else if (event.key === "Enter") {
                event.preventDefault();
                run(items[current]);
              } else if (event.key === "Escape") {
                event.preventDefault();
                event.stopPropagation();
                close();
              }
            }}
            aria-label="Command or file name"
            aria-controls="palette-list"
            aria-activedescendant={items[current] ? `palette-${current}` : undefined}
          />
        </label>
        <ul class="palette-list scroll-quiet" id="palette-list" role="listbox" ref={list}>
          {items.length === 0 ? (
            <li class="palette-empty">
              {hits.value ? `No document holds “${hits.value.query}”.` : `Nothing matches “${needle}”.`}
            </li>
          ) : null}
          {items.map((item, index) => (
            <li
              key={item.id}
              id={`palette-${index}`}
              role="option"
              aria-selected={index === current}
              class={`palette-item ${index === current ? "selected" : ""}`}
              onMouseMove={() => index !== current && (selected.value = index)}
              onClick={() => run(item)}
            >
              <Icon name={item.icon} size={15} />
              <span class="palette-label">{item.label}</span>
              {item.detail ? <span class="palette-detail">{item.detail}</span> : null}
              {item.keys ? <span class="palette-keys">{item.keys}</span> : null}
            </li>
          ))}
        </ul>
        <footer class="palette-foot">
          <span>
            <kbd>↑</kbd> <kbd>↓</kbd> to move
          </span>
          <span>
            <kbd>Enter</kbd> to open
          </span>
          <span>
            <kbd>Esc</kbd> to close
          </span>
        </footer>
      </div>
    </div>
  );
}
