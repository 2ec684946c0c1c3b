// The file dialogs: confirm a delete, choose whether a rename or move updates the links that
// name it (the notes that change listed), and the Trash view with Restore and Empty.

import { useSignal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { Icon, type IconName } from "../components/Icons";
import { baseName, relativeTime } from "../paths";
import { toast } from "../state";
import { fileDialog, restore, type FileDialog as Asked } from "./actions";
import { filesApi, type LinkUpdates, type TrashItem } from "./filesApi";
import { shownPath } from "./tree";

function Frame({
  label,
  icon,
  onClose,
  children,
}: {
  label: string;
  icon: IconName;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const first = box.current?.querySelector<HTMLElement>("[data-autofocus]") ?? box.current;
    first?.focus();
  }, []);
  return (
    <div class="settings-scrim" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div
        class="settings file-dialog"
        role="dialog"
        aria-modal="true"
        aria-label={label}
        tabIndex={-1}
        ref={box}
        onKeyDown={(event) => {
          if (event.key !== "Escape") return;
          event.preventDefault();
          event.stopPropagation();
          onClose();
        }}
      >
        <header class="settings-head">
          <Icon name={icon} />
          <h1>{label}</h1>
          <span class="export-spacer" />
          <button class="icon-button" onClick={onClose} title="Close (Esc)" aria-label="Close">
            <Icon name="x" />
          </button>
        </header>
        <div class="settings-body file-dialog-body">{children}</div>
      </div>
    </div>
  );
}

function ConfirmDelete({ path, isFolder, answer }: { path: string; isFolder: boolean; answer: (yes: boolean) => void }) {
  return (
    <Frame label={`Delete ${baseName(path)}?`} icon="trash" onClose={() => answer(false)}>
      <p>
        {isFolder ? "The folder and everything in it go" : "The note goes"} to the trash, where it can be restored for
        30 days. Open tabs showing it close.
      </p>
      <p class="file-dialog-path">{shownPath(path)}</p>
      <div class="export-actions">
        <button class="button" onClick={() => answer(false)}>
          Cancel
        </button>
        <button class="button button-danger" data-autofocus onClick={() => answer(true)}>
          Delete
        </button>
      </div>
    </Frame>
  );
}

function LinksDialog({ updates, answer }: { updates: LinkUpdates; answer: (choice: "update" | "keep" | "cancel") => void }) {
  const done = (choice: "update" | "keep" | "cancel") => {
    fileDialog.value = null;
    answer(choice);
  };
  const count = updates.notes.length;
  return (
    <Frame label="Update links?" icon="edit" onClose={() => done("cancel")}>
      <p>
        Moving <strong>{baseName(updates.path)}</strong> to <code>{shownPath(updates.to)}</code> changes links in {count} note
        {count === 1 ? "" : "s"}:
      </p>
      <ul class="file-dialog-list" aria-label="Notes whose links change">
        {updates.notes.map((note) => (
          <li key={note.path} title={note.path}>
            <span class="file-dialog-title">{note.title || baseName(note.path)}</span>
            <span class="row-hint">
              {note.links} link{note.links === 1 ? "" : "s"}, line{note.lines.length === 1 ? "" : "s"} {note.lines.join(", ")}
            </span>
          </li>
        ))}
      </ul>
      {updates.unreadable.length ? (
        <p class="file-dialog-note">
          {updates.unreadable.length} note{updates.unreadable.length === 1 ? "" : "s"} could not be checked:{" "}
          {updates.unreadable.map(baseName).join(", ")}
        </p>
      ) : null}
      <div class="export-actions">
        <button class="button" onClick={() => done("cancel")}>
          Cancel
        </button>
        <button class="button" onClick={() => done("keep")}>
          Move without updating
        </button>
        <button class="button button-primary" data-autofocus onClick={() => done("update")}>
          Move and update links
        </button>
      </div>
    </Frame>
  );
}

function TrashView() {
  const items = useSignal<TrashItem[] | null>(null);
  const problem = useSignal("");
  const load = async () => {
    try {
      items.value = await filesApi.trash();
      problem.value = "";
    } catch (error) {
      problem.value = error instanceof Error ? error.message : String(error);
    }
  };
  useEffect(() => void load(), []);
  const close = () => (fileDialog.value = null);
  /** Emptying is for good: the first click asks, the second empties. */
  const sure = useSignal(false);
  const empty = async () => {
    if (!sure.value) {
      sure.value = true;
      return;
    }
    sure.value = false;
    try {
      const done = await filesApi.emptyTrash();
      toast(`Removed ${done.removed} item${done.removed === 1 ? "" : "s"} for good`, "success");
      await load();
    } catch (error) {
      problem.value = error instanceof Error ? error.message : String(error);
    }
  };
  const list = items.value;
  return (
    <Frame label="Trash" icon="trash" onClose={close}>
      {problem.value ? (
        <div class="settings-problem" role="alert">
          <p>{problem.value}</p>
        </div>
      ) : null}
      {list === null ? (
        <p class="side-empty">Loading the trash…</p>
      ) : list.length === 0 ? (
        <p class="side-empty">The trash is empty. Deleted files and folders stay here for 30 days.</p>
      ) : (
        <ul class="file-dialog-list trash-list" aria-label="Deleted files">
          {list.map((item) => (
            <li key={item.id} title={item.path} data-trash-id={item.id}>
              <Icon name={item.isFolder ? "folder" : "file"} size={14} class="tree-icon" />
              <span class="file-dialog-title">{baseName(item.path)}</span>
              <span class="row-hint">
                deleted {relativeTime(item.deletedAtMs)} · {item.path.slice(item.workspace.length + 1)}
              </span>
              <button
                class="button button-quiet"
                onClick={() =>
                  void restore(item.id).then(async (ok) => {
                    if (ok) await load();
                  })
                }
                aria-label={`Restore ${baseName(item.path)}`}
              >
                Restore
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="export-actions">
        {list?.length ? (
          <button class="button button-danger" onClick={() => void empty()}>
            {sure.value ? "Remove all for good?" : "Empty trash"}
          </button>
        ) : null}
        <button class="button" data-autofocus onClick={close}>
          Close
        </button>
      </div>
    </Frame>
  );
}

export function FileDialogs() {
  const asked: Asked | null = fileDialog.value;
  if (!asked) return null;
  switch (asked.kind) {
    case "delete":
      return <ConfirmDelete key={asked.path} path={asked.path} isFolder={asked.isFolder} answer={asked.answer} />;
    case "links":
      return <LinksDialog key={asked.updates.path} updates={asked.updates} answer={asked.answer} />;
    case "trash":
      return <TrashView />;
  }
}
