// The sidebar's search: the server's word search over the workspaces, as you type. Each file
// shows its first matching lines; a click opens the document at that line.

import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { api, type SearchAnswer } from "../api";
import { locate, title } from "../paths";
import { files, openPath } from "../state";
import { Icon } from "./Icons";

const TYPING_PAUSE_MS = 220;

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

function plural(count: number, word: string): string {
  return `${count.toLocaleString()} ${word}${count === 1 ? "" : "s"}`;
}

function summary(answer: SearchAnswer): string {
  const shown = answer.results.length;
  const lines = answer.results.reduce((sum, result) => sum + result.matches, 0);
  const filesPart = answer.total > shown ? `${shown} of ${plural(answer.total, "file")}` : plural(shown, "file");
  return shown === 0 ? "No results" : `${filesPart} · ${plural(lines, "line")}`;
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

function Results({ answer, query }: { answer: SearchAnswer; query: string }) {
  if (answer.results.length === 0) {
    return <p class="side-empty">No document holds “{answer.query}”.</p>;
  }
  return (
    <ul class="search-list">
      {answer.results.map((result) => {
        const where = locate(result.path, files.value);
        const folder = where.folders[where.folders.length - 1] ?? where.workspace ?? "";
        const more = result.matches - result.lines.length;
        return (
          <li key={result.path} class="search-file">
            <button
              class="search-file-row"
              data-search-item
              onClick={() => void openPath(result.path, undefined, result.lines[0]?.line)}
              title={result.path}
            >
              <Icon name="file" size={13} class="tree-icon" />
              <span class="tree-label">{result.title || title(result.path)}</span>
              <span class="row-hint">{folder}</span>
            </button>
            <ul>
              {result.lines.map((line) => (
                <li key={line.line}>
                  <button
                    class="search-hit"
                    data-search-item
                    data-line={line.line}
                    onClick={() => void openPath(result.path, undefined, line.line)}
                    title={`Open ${result.title || title(result.path)} at line ${line.line}`}
                  >
                    <span class="hit-line">{line.line}</span>
                    <span class="hit-snippet">
                      <Highlight text={line.text} query={query} />
                    </span>
                  </button>
                </li>
              ))}
              {more > 0 ? <li class="hit-more">and {plural(more, "more line")}</li> : null}
            </ul>
          </li>
        );
      })}
    </ul>
  );
}

export function SearchPanel() {
  const query = useSignal("");
  const answer = useSignal<SearchAnswer | null>(null);
  const busy = useSignal(false);
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
      const found = await api.search(text.trim());
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
            else if (query.value.trim().length >= 2) {
              timer.current = window.setTimeout(() => void run(query.value), TYPING_PAUSE_MS);
            }
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
      {error.value ? <p class="side-empty error">{error.value}</p> : null}
      {shown ? (
        <div class="search-results scroll-quiet" onKeyDown={onResultsKey} aria-label="Search results" role="region">
          <header class="side-heading">
            <span>{summary(shown)}</span>
          </header>
          <Results answer={shown} query={shown.query} />
          {shown.note ? (
            <p class="search-note">
              <Icon name="alert" size={13} /> {shown.note}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
