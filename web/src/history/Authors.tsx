// The Authors view of the History panel: each line of the note as committed last (git blame),
// with the person or agent who last changed it; a run of lines from one commit names it once.

import type { ComponentChildren } from "preact";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { relativeTime } from "../paths";
import { historyApi, type BlameLine } from "./historyApi";

export function Authors({ path, tools }: { path: string; tools: ComponentChildren }) {
  const lines = useSignal<BlameLine[] | null>(null);
  const error = useSignal<string | null>(null);
  const load = () => {
    lines.value = null;
    historyApi
      .blame(path)
      .then((answer) => {
        lines.value = answer.lines;
        error.value = null;
      })
      .catch((failure: unknown) => (error.value = failure instanceof Error ? failure.message : String(failure)));
  };
  useEffect(load, [path]);
  const now = Date.now();
  const shown = lines.value;
  return (
    <div class="history-body scroll-quiet">
      <div class="history-tools">
        {tools}
        <button class="button button-quiet" onClick={load}>
          Refresh
        </button>
      </div>
      {error.value ? (
        <p class="diff-note tone-error">{error.value}</p>
      ) : shown === null ? (
        <p class="diff-note">
          <span class="spinner" /> Loading who wrote what…
        </p>
      ) : shown.length === 0 ? (
        <p class="diff-note">No committed lines yet.</p>
      ) : (
        <div class="blame" role="table" aria-label="Each line's last author">
          {shown.map((line, index) => {
            const first = index === 0 || shown[index - 1].commit !== line.commit;
            const who = line.agent ?? line.author;
            return (
              <div
                key={line.line}
                role="row"
                class={`blame-row ${first ? "first" : ""}`}
                data-line={line.line}
                data-author={who}
              >
                <span role="cell" class="blame-who" title={`${line.author} · ${line.commit.slice(0, 7)}`}>
                  {first ? (
                    <>
                      {who}
                      {line.agent ? <span class="agent-badge">agent</span> : null}{" "}
                      <span class="blame-when">{relativeTime(line.timeMs, now)}</span>
                    </>
                  ) : null}
                </span>
                <span role="cell" class="blame-text">
                  {line.text || " "}
                </span>
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}
