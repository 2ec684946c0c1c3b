// The activity drawer (Ctrl/Cmd+B): files in the workspaces that agents created or changed,
// newest first, as the server reports them; a click opens the file. Its Timeline tab lists the
// commits across the workspaces (history), filterable by person or agent.

import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { colorFor } from "../identity";
import { locate, relativeTime, title } from "../paths";
import { activity, drawerOpen, files, openPath, unseenActivity } from "../state";
import { Timeline } from "../history/Timeline";
import { Icon } from "./Icons";

const VERBS: Record<string, string> = {
  edit: "edited",
  create: "created",
  save: "saved",
  write: "wrote",
  delete: "deleted",
  rename: "renamed",
};

export function ActivityDrawer() {
  const pane = useSignal<"agents" | "timeline">("agents");
  const tick = useSignal(Date.now());
  useEffect(() => {
    if (!drawerOpen.value) return;
    unseenActivity.value = 0;
    const timer = window.setInterval(() => (tick.value = Date.now()), 15000);
    return () => window.clearInterval(timer);
  }, [drawerOpen.value]);
  if (!drawerOpen.value) return null;
  const items = activity.value;
  return (
    <aside class="drawer" aria-label="Agent activity">
      <header class="drawer-head">
        <h2>Activity</h2>
        <span class="drawer-sub">What agents changed in the workspaces</span>
        <button class="icon-button" onClick={() => (drawerOpen.value = false)} aria-label="Close activity" title="Close (Ctrl+B)">
          <Icon name="x" size={14} />
        </button>
      </header>
      <div class="drawer-tabs">
        <div class="segmented" role="radiogroup" aria-label="Activity view">
          {(["agents", "timeline"] as const).map((name) => (
            <button
              key={name}
              role="radio"
              aria-checked={pane.value === name}
              class={pane.value === name ? "on" : ""}
              onClick={() => (pane.value = name)}
              data-drawer-pane={name}
            >
              <span>{name === "agents" ? "Agents" : "Timeline"}</span>
            </button>
          ))}
        </div>
      </div>
      {pane.value === "timeline" ? (
        <Timeline />
      ) : items.length === 0 ? (
        <div class="drawer-empty">
          <Icon name="activity" size={22} />
          <p>Nothing yet. When an agent creates or edits a document, it shows up here.</p>
        </div>
      ) : (
        <ul class="activity-list scroll-quiet">
          {items.map((item, index) => {
            const where = locate(item.path, files.value);
            return (
              <li key={`${item.path}:${item.at}:${index}`}>
                <button class="activity-item" onClick={() => void openPath(item.path)} title={item.path}>
                  <span class="avatar avatar-sm" style={{ background: colorFor(item.author) }}>
                    {item.author.slice(0, 1).toUpperCase()}
                  </span>
                  <span class="activity-main">
                    <span class="activity-file">{title(item.path)}</span>
                    <span class="activity-meta">
                      {item.author} {VERBS[item.kind] ?? item.kind} · {[where.workspace, ...where.folders].filter(Boolean).join(" / ") || "outside the workspaces"}
                    </span>
                  </span>
                  <time class="activity-time" dateTime={new Date(item.at).toISOString()}>
                    {relativeTime(item.at, tick.value)}
                  </time>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </aside>
  );
}
