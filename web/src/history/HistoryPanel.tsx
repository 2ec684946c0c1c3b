// The History panel of the open note: its commits newest first (author, an agent badge, time,
// message), "Load more" through the cursor, the diff of a chosen commit against the one before
// it (or any older one loaded), and "Restore this version" (confirmed inline) through the restore route, so the live
// document changes as any edit does and open editors merge it.

import type { ComponentChildren } from "preact";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { Icon } from "../components/Icons";
import { colorFor } from "../identity";
import { relativeTime, title } from "../paths";
import { activeTab, toast } from "../state";
import { Authors } from "./Authors";
import { historyApi, type HistoryEntry } from "./historyApi";
import { historyOpen } from "./historyState";
import { sideBySide } from "./sideBySide";

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Who made a commit: the agent's name when an agent did, else the person's. */
export function AuthorName({ author, agent }: { author: string; agent: string | null }) {
  const name = agent ?? author;
  return (
    <span class="history-author">
      <span class="avatar avatar-sm" style={{ background: colorFor(name) }}>
        {name.slice(0, 1).toUpperCase()}
      </span>
      <span class="history-name">{name}</span>
      {agent ? (
        <span class="agent-badge" title={author}>
          agent
        </span>
      ) : null}
    </span>
  );
}

function bodyLines(text: string): string[] {
  return text
    .replace(/\n$/, "")
    .split("\n")
    .filter((line) => !/^(diff --git|index |--- |\+\+\+ |\\ No newline)/.test(line));
}

function SplitDiff({ lines }: { lines: string[] }) {
  return (
    <div class="diff history-diff diff-split scroll-quiet" role="region" aria-label="Changes side by side">
      {sideBySide(lines).map((row, index) =>
        row.kind === "gap" ? (
          <div key={index} class="diff-gap">
            {row.left}
          </div>
        ) : (
          <div key={index} class="split-row">
            <span class={`split-old ${row.kind === "change" && row.left !== null ? "diff-del" : ""}`}>
              {row.left ?? ""}
            </span>
            <span class={`split-new ${row.kind === "change" && row.right !== null ? "diff-add" : ""}`}>
              {row.right ?? ""}
            </span>
          </div>
        ),
      )}
    </div>
  );
}

function UnifiedDiff({ text, split }: { text: string; split: boolean }) {
  const lines = bodyLines(text);
  if (lines.every((line) => line === "")) return <p class="diff-note">The two versions hold the same text.</p>;
  if (split) return <SplitDiff lines={lines} />;
  return (
    <div class="diff history-diff scroll-quiet" role="region" aria-label="Changes in this version">
      {lines.map((line, index) => {
        if (line.startsWith("@@")) {
          return (
            <div key={index} class="diff-gap">
              {line}
            </div>
          );
        }
        const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "same";
        return (
          <div key={index} class={`history-line diff-${kind}`}>
            <span class="diff-sign">{kind === "add" ? "+" : kind === "del" ? "−" : " "}</span>
            <span class="diff-text">{line.slice(1) || " "}</span>
          </div>
        );
      })}
    </div>
  );
}

interface DetailProps {
  path: string;
  entry: HistoryEntry;
  /** The loaded commits older than ``entry``, newest first: the diff is against one of them. */
  older: HistoryEntry[];
  onRestored: () => void;
}

function CommitDetail({ path, entry, older, onRestored }: DetailProps) {
  const against = useSignal<string | null>(older[0]?.commit ?? null);
  const before = older.find((item) => item.commit === against.value) ?? null;
  const diff = useSignal<string | null>(null);
  const error = useSignal<string | null>(null);
  const confirming = useSignal(false);
  const split = useSignal(false);
  const busy = useSignal(false);
  useEffect(() => {
    diff.value = null;
    error.value = null;
    confirming.value = false;
    const load = before
      ? historyApi.diff(path, before.commit, entry.commit).then((answer) => answer.diff)
      : historyApi.version(path, entry.commit).then((answer) =>
          answer.content
            .replace(/\n$/, "")
            .split("\n")
            .map((line) => `+${line}`)
            .join("\n"),
        );
    load.then((text) => (diff.value = text)).catch((failure) => (error.value = message(failure)));
  }, [path, entry.commit, before?.commit]);
  const restore = async () => {
    busy.value = true;
    try {
      const done = await historyApi.restore(path, entry.commit);
      toast(
        done.commit ? `Restored ${title(path)} to ${entry.short}` : `${title(path)} already holds ${entry.short}`,
        "success",
      );
      confirming.value = false;
      onRestored();
    } catch (failure) {
      toast(`Could not restore ${entry.short}: ${message(failure)}`, "error");
    } finally {
      busy.value = false;
    }
  };
  return (
    <div class="history-detail" data-commit={entry.commit}>
      {older.length > 0 ? (
        <label class="history-detail-head">
          Changes to {entry.short} since{" "}
          <select
            value={against.value ?? ""}
            onChange={(event) => (against.value = event.currentTarget.value)}
            aria-label="Compare with"
          >
            {older.map((item, index) => (
              <option key={item.commit} value={item.commit}>
                {item.short} · {item.agent ?? item.author}
                {index === 0 ? " (the one before)" : ""}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <p class="history-detail-head">{entry.short}: the oldest version shown, in full</p>
      )}
      {error.value ? (
        <p class="diff-note tone-error">{error.value}</p>
      ) : diff.value === null ? (
        <p class="diff-note">
          <span class="spinner" /> Loading the diff…
        </p>
      ) : (
        <>
          <button
            class="button button-quiet history-split"
            aria-pressed={split.value}
            onClick={() => (split.value = !split.value)}
          >
            {split.value ? "Inline" : "Side by side"}
          </button>
          <UnifiedDiff text={diff.value} split={split.value} />
        </>
      )}
      {confirming.value ? (
        <div class="history-confirm" role="alertdialog" aria-label="Restore this version?">
          <p>
            Make {title(path)} hold its text at {entry.short} again? This is a new commit; open editors take the text as
            any edit.
          </p>
          <button class="button button-primary" disabled={busy.value} onClick={() => void restore()}>
            Restore {entry.short}
          </button>
          <button class="button button-ghost" disabled={busy.value} onClick={() => (confirming.value = false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button class="button history-restore" onClick={() => (confirming.value = true)}>
          Restore this version
        </button>
      )}
    </div>
  );
}

function Commits({ path, tools }: { path: string; tools: ComponentChildren }) {
  const entries = useSignal<HistoryEntry[]>([]);
  const cursor = useSignal<string | null>(null);
  const loading = useSignal(true);
  const error = useSignal<string | null>(null);
  const chosen = useSignal<string | null>(null);
  const now = Date.now();
  const load = async (from: string | null) => {
    loading.value = true;
    try {
      const page = await historyApi.note(path, from);
      entries.value = from ? [...entries.value, ...page.entries] : page.entries;
      cursor.value = page.nextCursor;
      error.value = null;
    } catch (failure) {
      error.value = message(failure);
    } finally {
      loading.value = false;
    }
  };
  useEffect(() => {
    chosen.value = null;
    void load(null);
  }, [path]);
  const list = entries.value;
  if (error.value) return <p class="drawer-empty">{error.value}</p>;
  if (!loading.value && list.length === 0) {
    return (
      <div class="drawer-empty">
        <Icon name="clock" size={22} />
        <p>No commits of this note yet. When history is on, each save becomes one.</p>
      </div>
    );
  }
  return (
    <div class="history-body scroll-quiet">
      <div class="history-tools">
        {tools}
        <button class="button button-quiet" onClick={() => void load(null)} disabled={loading.value}>
          Refresh
        </button>
      </div>
      <ul class="history-list">
        {list.map((entry, index) => (
          <li key={entry.commit} class={chosen.value === entry.commit ? "on" : ""} data-commit={entry.commit}>
            <button
              class="history-item"
              aria-expanded={chosen.value === entry.commit}
              onClick={() => (chosen.value = chosen.value === entry.commit ? null : entry.commit)}
            >
              <AuthorName author={entry.author} agent={entry.agent} />
              <time class="activity-time" dateTime={new Date(entry.timeMs).toISOString()}>
                {relativeTime(entry.timeMs, now)}
              </time>
              <span class="history-message">{entry.message}</span>
              <code class="history-short">{entry.short}</code>
            </button>
            {chosen.value === entry.commit ? (
              <CommitDetail
                path={path}
                entry={entry} older={list.slice(index + 1)}
                onRestored={() => void load(null)}
              />
            ) : null}
          </li>
        ))}
      </ul>
      {cursor.value ? (
        <button class="button history-more" disabled={loading.value} onClick={() => void load(cursor.value)}>
          Load more
        </button>
      ) : null}
      {loading.value ? (
        <p class="diff-note">
          <span class="spinner" /> Loading…
        </p>
      ) : null}
    </div>
  );
}

function Panes({ path }: { path: string }) {
  const pane = useSignal<"commits" | "authors">("commits");
  const tools = (
    <div class="segmented" role="radiogroup" aria-label="History view">
      {(["commits", "authors"] as const).map((name) => (
        <button
          key={name}
          role="radio"
          aria-checked={pane.value === name}
          class={pane.value === name ? "on" : ""}
          onClick={() => (pane.value = name)}
          data-history-pane={name}
        >
          <span>{name === "commits" ? "Commits" : "Authors"}</span>
        </button>
      ))}
    </div>
  );
  return pane.value === "commits" ? <Commits path={path} tools={tools} /> : <Authors path={path} tools={tools} />;
}

export function HistoryPanel() {
  if (!historyOpen.value) return null;
  const tab = activeTab.value;
  return (
    <aside class="drawer history-panel" aria-label="History">
      <header class="drawer-head">
        <h2>History</h2>
        <span class="drawer-sub">{tab ? title(tab.path) : "Open a note to see its history"}</span>
        <button class="icon-button" onClick={() => (historyOpen.value = false)} aria-label="Close history">
          <Icon name="x" size={14} />
        </button>
      </header>
      {tab ? <Panes key={tab.path} path={tab.path} /> : null}
    </aside>
  );
}
