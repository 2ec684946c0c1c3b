// The workspace timeline (in the activity drawer): recent commits across the workspaces, newest
// first, filterable by a person (their own commits and their agents') or by one agent; a click
// opens the note. "Load more" pages back through the cursor.

import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { relativeTime, title } from "../paths";
import { openPath } from "../state";
import { historyApi, type HistoryEntry } from "./historyApi";
import { AuthorName } from "./HistoryPanel";

/** "" everyone, "author:NAME" a person's, "agent:NAME" one agent's. */
type Filter = string;

function parsed(filter: Filter): { author?: string; agent?: string } {
  const colon = filter.indexOf(":");
  const kind = filter.slice(0, colon);
  const name = filter.slice(colon + 1);
  if (kind === "author") return { author: name };
  if (kind === "agent") return { agent: name };
  return {};
}

export function Timeline() {
  const filter = useSignal<Filter>("");
  const entries = useSignal<HistoryEntry[]>([]);
  const cursor = useSignal<string | null>(null);
  const known = useSignal<{ people: string[]; agents: string[] }>({ people: [], agents: [] });
  const error = useSignal<string | null>(null);
  const loading = useSignal(true);
  const load = async (from: string | null) => {
    loading.value = true;
    try {
      const page = await historyApi.timeline(parsed(filter.value), from);
      entries.value = from ? [...entries.value, ...page.entries] : page.entries;
      cursor.value = page.nextCursor;
      const people = new Set(known.value.people);
      const agents = new Set(known.value.agents);
      page.entries.forEach((entry) => (entry.agent ? agents.add(entry.agent) : people.add(entry.account)));
      known.value = { people: [...people].sort(), agents: [...agents].sort() };
      error.value = null;
    } catch (failure) {
      error.value = failure instanceof Error ? failure.message : String(failure);
    } finally {
      loading.value = false;
    }
  };
  useEffect(() => void load(null), [filter.value]);
  const now = Date.now();
  return (
    <div class="history-body scroll-quiet timeline">
      <label class="timeline-filter">
        <span>Show</span>
        <select
          value={filter.value}
          onChange={(event) => (filter.value = event.currentTarget.value)}
          aria-label="Filter the timeline"
        >
          <option value="">Everyone</option>
          {known.value.people.map((name) => (
            <option key={`author:${name}`} value={`author:${name}`}>
              {name} and their agents
            </option>
          ))}
          {known.value.agents.map((name) => (
            <option key={`agent:${name}`} value={`agent:${name}`}>
              {name} (agent)
            </option>
          ))}
        </select>
      </label>
      {error.value ? <p class="diff-note tone-error">{error.value}</p> : null}
      {!loading.value && !error.value && entries.value.length === 0 ? (
        <p class="diff-note">No commits here yet. With history on, each save becomes one.</p>
      ) : null}
      <ul class="history-list">
        {entries.value.map((entry) => (
          <li key={`${entry.commit}:${entry.path ?? ""}`} data-commit={entry.commit}>
            <button
              class="history-item"
              disabled={!entry.path || entry.status === "D"}
              onClick={() => entry.path && void openPath(entry.path)}
              title={entry.path ?? ""}
            >
              <AuthorName author={entry.author} agent={entry.agent} />
              <time class="activity-time" dateTime={new Date(entry.timeMs).toISOString()}>
                {relativeTime(entry.timeMs, now)}
              </time>
              <span class="history-message">
                {entry.path ? <strong class="timeline-file">{title(entry.path)}</strong> : null} {entry.message}
              </span>
              <code class="history-short">{entry.short}</code>
            </button>
          </li>
        ))}
      </ul>
      {cursor.value ? (
        <button class="button history-more" disabled={loading.value} onClick={() => void load(cursor.value)}>
          Load more
        </button>
      ) : null}
    </div>
  );
}
