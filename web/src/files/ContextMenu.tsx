// The tree's context menu (right click, Shift+F10 or the menu key on a row): what can be done to
// that file or folder. Arrow keys move through it, Escape closes it and focus goes back to the row.

import { signal } from "@preact/signals";
import { useLayoutEffect, useRef } from "preact/hooks";
import { Icon, type IconName } from "../components/Icons";
import { dirName } from "../paths";
import { openPath } from "../state";
import { askDelete, copyPath, download, duplicate, newChatHere, newFolder, newNote, renaming, uploadInto } from "./actions";
import { focusRow } from "./tree";

export type RowKind = "root" | "folder" | "file";

interface MenuAt {
  path: string;
  kind: RowKind;
  x: number;
  y: number;
}

const menu = signal<MenuAt | null>(null);

export function openMenu(at: MenuAt): void {
  menu.value = at;
}

interface Entry {
  label: string;
  icon: IconName;
  keys?: string;
  run: () => void;
}

function pickFiles(folder: string): void {
  const input = document.createElement("input");
  input.type = "file";
  input.multiple = true;
  input.addEventListener("change", () => void uploadInto(folder, [...(input.files ?? [])]), { once: true });
  input.click();
}

function entries({ path, kind }: MenuAt): Entry[][] {
  const isFolder = kind !== "file";
  const folder = isFolder ? path : dirName(path);
  const make: Entry[] = [
    { label: "New note", icon: "plus", keys: "Alt N", run: () => void newNote(folder) },
    { label: "New folder", icon: "folder", keys: "Alt Shift N", run: () => void newFolder(folder) },
    { label: "New chat here", icon: "chat", run: () => void newChatHere(folder) },
    { label: "Upload files…", icon: "upload", run: () => pickFiles(folder) },
  ];
  const change: Entry[] =
    kind === "root"
      ? []
      : [
          ...(isFolder ? [] : [{ label: "Open", icon: "read" as const, keys: "Enter", run: () => void openPath(path) }]),
          { label: "Rename", icon: "edit", keys: "F2", run: () => (renaming.value = { path, thenOpen: false }) },
          { label: "Duplicate", icon: "copy", keys: "Ctrl D", run: () => void duplicate(path, isFolder) },
          { label: "Delete", icon: "trash", keys: "Del", run: () => askDelete(path, isFolder) },
        ];
  const share: Entry[] = [
    { label: "Copy path", icon: "copy", keys: "Ctrl C", run: () => void copyPath(path) },
    { label: isFolder ? "Download as zip" : "Download", icon: "download", run: () => download(path) },
  ];
  return [make, change, share].filter((group) => group.length > 0);
}

export function ContextMenu() {
  const at = menu.value;
  const box = useRef<HTMLDivElement>(null);
  // Before paint, so a key pressed right after the menu opens already lands in it.
  useLayoutEffect(() => {
    if (!at || !box.current) return;
    const element = box.current;
    const rect = element.getBoundingClientRect();
    // Keep the whole menu inside the window.
    element.style.left = `${Math.max(4, Math.min(at.x, window.innerWidth - rect.width - 4))}px`;
    element.style.top = `${Math.max(4, Math.min(at.y, window.innerHeight - rect.height - 4))}px`;
    element.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [at]);
  if (!at) return null;
  const close = (refocus: boolean) => {
    menu.value = null;
    if (refocus) focusRow(at.path);
  };
  const move = (from: HTMLElement, by: number) => {
    const items = [...(box.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const index = items.indexOf(from);
    items[(index + by + items.length) % items.length]?.focus();
  };
  return (
    <div class="menu-scrim" onMouseDown={(event) => event.target === event.currentTarget && close(false)}>
      <div
        class="tree-menu"
        role="menu"
        aria-label="File actions"
        ref={box}
        style={{ left: `${at.x}px`, top: `${at.y}px` }}
        onKeyDown={(event) => {
          const target = event.target as HTMLElement;
          if (event.key === "Escape" || event.key === "Tab") close(true);
          else if (event.key === "ArrowDown") move(target, 1);
          else if (event.key === "ArrowUp") move(target, -1);
          else return;
          event.preventDefault();
          event.stopPropagation();
        }}
      >
        {entries(at).map((group, index) => (
          <div class="tree-menu-group" role="group" key={index}>
            {group.map((entry) => (
              <button
                key={entry.label}
                role="menuitem"
                class="tree-menu-item"
                tabIndex={-1}
                onClick={() => {
                  // Rename and the dialogs take focus themselves; the rest go back to the row.
                  close(!["Rename", "Delete", "New note", "New folder", "New chat here"].includes(entry.label));
                  entry.run();
                }}
              >
                <Icon name={entry.icon} size={14} />
                <span class="tree-menu-label">{entry.label}</span>
                {entry.keys ? <span class="tree-menu-keys">{entry.keys}</span> : null}
              </button>
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}
