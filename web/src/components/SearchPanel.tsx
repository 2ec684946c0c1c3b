// The sidebar's search: the server's index over the workspaces, as you type. One row per file
// with the snippet around its first match (matches marked), a mode toggle (exact text, every
// word ranked, or meaning and words ranked together), and "More" for the next page. A click opens the document at that line.

import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { api, type SearchMode, type SearchPage } from "../api";
import { baseName, title } from "../paths";
import { pieces } from "../snippets";
import { openPath } from "../state";
import { Icon } from "./Icons";

const TYPING_PAUSE_MS = 150;
const MODE_KEY = "quire.search.mode";
const MODES: { mode: SearchMode; label: string; hint: string }[] = [
  { mode: "grep", label: "Text", hint: "Exact text, ignoring case" },
  { mode: "words", label: "Words", hint: "Every word, in any order, best matches first" },
  { mode: "semantic", label: "Meaning", hint: "By meaning and words, best matches first (the server's semantic extra)" },
];

function storedMode(): SearchMode {
  try {
    const stored = localStorage.getItem(MODE_KEY);
    return MODES.find((entry) => entry.mode === stored)?.mode ?? "grep";
  } catch {
    return "grep";
  }
}
/** `text` with the first occurrence of `query` (ignoring case) marked. */
export function Highlight({ text, query }: { text: string; query: string }) {
  const index = query ? text.toLowerCase().indexOf(query.toLowerCase()) : -1;
  if (index < 0) return <>{text}</>;
  return (
    <>
      {text.slice(0, index)}
      <mark>{text.slice(index, index + query.length)}</mark>
      {text.slice(index + query.length)}
    </>
  );
}

/** A snippet from the server, its marked matches in <mark> (rendered as text, never HTML). */
export function Snippet({ text }: { text: string }) {
  return <>{pieces(text).map((piece, index) => (piece.marked ? <mark key={index}>{piece.text}</mark> : piece.text))}</>;
}

function plural(count: number, word: string): string {
  return `${count.toLocaleString()} ${word}${count === 1 ? "" : "s"}`;
}

function summary(page: SearchPage): string {
  const shown = page.hits.length;
  if (shown === 0) return "No results";
  return `${plural(shown, "file")}${page.truncated ? " and more" : ""}`;
}

/** Move the focus between the results with the arrow keys. */
function onResultsKey(event: KeyboardEvent): void {
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
  const items = [...(event.currentTarget as HTMLElement).querySelectorAll<HTMLElement>("[data-search-item]")];
  const at = items.indexOf(document.activeElement as HTMLElement);
  const next = items[event.key === "ArrowDown" ? at + 1 : at - 1];
  if (next) {
    event.preventDefault();
    next.focus();
  } else if (event.key === "ArrowUp") {
    event.preventDefault();
    document.querySelector<HTMLInputElement>(".side-search input")?.focus();
  }
}

function Results({ page }: { page: SearchPage }) {
  if (page.hits.length === 0) {
    return <p class="side-empty">No document holds “{page.query}”.</p>;
  }
  return (
    <ul class="search-list">
      {page.hits.map((hit) => {
        const folders = hit.relPath.split("/").slice(0, -1);
        const folder = folders[folders.length - 1] ?? baseName(hit.workspace);
        const name = hit.title || title(hit.path);
        const more = (hit.matches ?? 1) - 1;
        return (
          <li key={hit.path} class="search-file" data-path={hit.path}>
            <button
              class="search-file-row"
              data-search-item
              onClick={() => void openPath(hit.path, undefined, hit.line)}
              title={hit.path}
            >
              <Icon name="file" size={13} class="tree-icon" />
              <span class="tree-label">{name}</span>
              <span class="row-hint">{folder}</span>
            </button>
            <ul>
              <li>
                <button
                  class="search-hit"
                  data-search-item
                  data-line={hit.line}
                  onClick={() => void openPath(hit.path, undefined, hit.line)}
                  title={`Open ${name} at line ${hit.line}`}
                >
                  <span class="hit-line">{hit.line}</span>
                  <span class="hit-snippet">
                    <Snippet text={hit.snippet} />
                  </span>
                </button>
              </li>
              {more > 0 ? <li class="hit-more">and {plural(more, "more match")}</li> : null}
            </ul>
          </li>
        );
      })}
    </ul>
  );
}

function Unread({ page }: { page: SearchPage }) {
  if (!page.note && page.unreadable.length === 0) return null;
  const names = page.unreadable.map((file) => `${file.path.split("/").pop() ?? file.path} (${file.reason})`);
  return (
    <p class="search-note">
      <Icon name="alert" size={13} />{" "}
      <span>{page.note ?? `Not searched: ${names.join("; ")}`}</span>
    </p>
  );
}

export function SearchPanel() {
  const query = useSignal("");
  const mode = useSignal<SearchMode>(storedMode());
  const answer = useSignal<SearchPage | null>(null);
  const busy = useSignal(false);
  const loadingMore = useSignal(false);
  const error = useSignal("");
  const input = useRef<HTMLInputElement>(null);
  const serial = useRef(0);
  const timer = useRef<number | undefined>(undefined);

  useEffect(() => {
    const focus = () => {
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener("quire:focus-search", focus);
    return () => {
      window.removeEventListener("quire:focus-search", focus);
      window.clearTimeout(timer.current);
    };
  }, []);

  const clear = () => {
    serial.current++;
    window.clearTimeout(timer.current);
    query.value = "";
    answer.value = null;
    error.value = "";
    busy.value = false;
    loadingMore.value = false;
  };

  const run = async (text: string) => {
    window.clearTimeout(timer.current);
    const mine = ++serial.current;
    if (!text.trim()) {
      clear();
      return;
    }
    busy.value = true;
    try {
      const found = await api.search(text.trim(), { mode: mode.value });
      if (mine !== serial.current) return;
      answer.value = found;
      error.value = "";
    } catch (caught) {
      if (mine !== serial.current) return;
      answer.value = null;
      error.value = caught instanceof Error ? caught.message : String(caught);
    } finally {
      if (mine === serial.current) busy.value = false;
    }
  };

  const more = async () => {
    const page = answer.value;
    if (!page?.nextCursor || loadingMore.value) return;
    const mine = serial.current;
    loadingMore.value = true;
    try {
      const next = await api.search(page.query, { mode: page.mode, cursor: page.nextCursor });
      if (mine !== serial.current) return;
      const seen = new Set(page.hits.map((hit) => hit.path));
      answer.value = { ...next, hits: [...page.hits, ...next.hits.filter((hit) => !seen.has(hit.path))] };
    } catch (caught) {
      if (mine === serial.current) error.value = caught instanceof Error ? caught.message : String(caught);
    } finally {
      if (mine === serial.current) loadingMore.value = false;
    }
  };

  const choose = (chosen: SearchMode) => {
    if (chosen === mode.value) return;
    mode.value = chosen;
    try {
      localStorage.setItem(MODE_KEY, chosen);
    } catch {
      // A browser without storage keeps the mode for this page only.
    }
    if (query.value.trim()) void run(query.value);
  };

  const shown = answer.value;
  return (
    <div class="side-search">
      <label class="search-field">
        <Icon name="search" size={14} />
        <input
          ref={input}
          type="search"
          placeholder="Search documents"
          value={query.value}
          onInput={(event) => {
            query.value = event.currentTarget.value;
            window.clearTimeout(timer.current);
            if (!query.value.trim()) clear();
            else timer.current = window.setTimeout(() => void run(query.value), TYPING_PAUSE_MS);
          }}
          onKeyDown={(event) => {
            if (event.key === "Enter") void run(query.value);
            else if (event.key === "Escape" && query.value) {
              event.preventDefault();
              clear();
            } else if (event.key === "ArrowDown") {
              const first = document.querySelector<HTMLElement>(".search-results [data-search-item]");
              if (first) {
                event.preventDefault();
                first.focus();
              }
            }
          }}
          aria-label="Search documents"
          maxLength={1000}
        />
        {busy.value ? (
          <span class="spinner" aria-label="Searching" />
        ) : query.value ? (
          <button class="search-clear" onClick={clear} title="Clear the search (Esc)" aria-label="Clear the search">
            <Icon name="x" size={12} />
          </button>
        ) : (
          <kbd class="search-keys" title="Ctrl+Shift+F">
            Ctrl ⇧ F
          </kbd>
        )}
      </label>
      <div class="search-modes" role="group" aria-label="Search mode">
        {MODES.map((entry) => (
          <button
            key={entry.mode}
            class={`search-mode ${mode.value === entry.mode ? "active" : ""}`}
            aria-pressed={mode.value === entry.mode}
            title={entry.hint}
            onClick={() => choose(entry.mode)}
          >
            {entry.label}
          </button>
        ))}
      </div>
      {error.value ? <p class="side-empty error">{error.value}</p> : null}
      {shown ? (
        <div class="search-results scroll-quiet" onKeyDown={onResultsKey} aria-label="Search results" role="region">
          <header class="side-heading">
            <span>{summary(shown)}</span>
            <span class="row-hint search-indexed">{shown.indexed.toLocaleString()} indexed</span>
          </header>
          <Results page={shown} />
          {shown.truncated && shown.nextCursor ? (
            <button class="search-more" data-search-item onClick={() => void more()} disabled={loadingMore.value}>
              {loadingMore.value ? "Loading…" : "More results"}
            </button>
          ) : null}
          <Unread page={shown} />
        </div>
      ) : null}
    </div>
  );
}
