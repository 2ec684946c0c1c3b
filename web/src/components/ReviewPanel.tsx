// The review panel: an agent asked the person to sign off. It shows what is under review
// (the open document, or the inline text), who asked, the time left, a comment box and the
// three answers. A review whose time ran out can still be answered; it is recorded as late.

import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { colorFor } from "../identity";
import { locate, title } from "../paths";
import { activeTab, agentName, decideReview, files, hideReview, openPath, review, reviewNotice } from "../state";
import { Icon } from "./Icons";

function clock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${minutes}:${String(seconds).padStart(2, "0")}`;
}

function Countdown({ createdAt, deadline, now }: { createdAt: number; deadline: number; now: number }) {
  const left = deadline - now;
  const span = Math.max(1, deadline - createdAt);
  const share = Math.max(0, Math.min(1, left / span));
  return (
    <div class={`countdown ${left <= 0 ? "over" : left < 30000 ? "urgent" : ""}`} role="timer" aria-live="off">
      <div class="countdown-bar">
        <span style={{ width: `${share * 100}%` }} />
      </div>
      <span class="countdown-text">{left > 0 ? `${clock(left)} left` : "Time is up"}</span>
    </div>
  );
}

function reviewLocation(path: string): string {
  const where = locate(path, files.value);
  return [where.workspace, ...where.folders].filter(Boolean).join(" / ") || path;
}

export function ReviewPanel() {
  const current = review.value;
  const notice = reviewNotice.value;
  const comments = useSignal("");
  const busy = useSignal(false);
  const collapsed = useSignal(false);
  const lastId = useRef<string | null>(null);
  const tick = useSignal(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => (tick.value = Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const now = tick.value;

  if (current && lastId.current !== current.reviewId) {
    lastId.current = current.reviewId;
    comments.value = "";
    collapsed.value = false;
  }
  if (!current && !notice) return null;

  const decide = async (verdict: "approved" | "changes_requested" | "dismissed") => {
    busy.value = true;
    await decideReview(verdict, comments.value);
    busy.value = false;
  };

  if (!current && notice) {
    return (
      <aside class="review-panel review-done" aria-label="Review">
        <div class={`review-outcome tone-${notice.tone}`} role="status">
          <Icon name={notice.tone === "success" ? "check" : "alert"} />
          <p>{notice.text}</p>
          <button class="icon-button" onClick={() => (reviewNotice.value = null)} aria-label="Close">
            <Icon name="x" size={14} />
          </button>
        </div>
      </aside>
    );
  }
  if (!current) return null;
  const late = current.deadline <= now;
  const agent = agentName(current.requestedBy);
  const showingDocument = current.path !== null && activeTab.value?.path === current.path;
  return (
    <aside
      class={`review-panel ${collapsed.value ? "collapsed" : ""}`}
      aria-label="Review requested"
      data-review-id={current.reviewId}
    >
      <header
        class="review-head"
        onClick={(event) => {
          if (!(event.target as HTMLElement).closest("button")) collapsed.value = !collapsed.value;
        }}
      >
        <div class="review-title">
          <Icon name="review" />
          <h2>Review requested</h2>
          <button
            class="icon-button review-collapse"
            onClick={() => (collapsed.value = !collapsed.value)}
            aria-label={collapsed.value ? "Show the review" : "Fold the review away"}
            aria-expanded={!collapsed.value}
          >
            <Icon name="chevron" size={14} />
          </button>
          {late ? (
            <button class="icon-button review-hide" onClick={hideReview} title="Hide without answering" aria-label="Hide">
              <Icon name="x" size={14} />
            </button>
          ) : null}
        </div>
        <div class="review-agent">
          <span class="avatar" style={{ background: colorFor(agent) }}>
            {agent.slice(0, 1).toUpperCase()}
          </span>
          <span>
            <strong>{agent}</strong> asks you to look this over
          </span>
        </div>
        <Countdown createdAt={current.createdAt} deadline={current.deadline} now={now} />
      </header>
      {notice && notice.reviewId === current.reviewId ? (
        <p class={`review-note tone-${notice.tone}`}>{notice.text}</p>
      ) : null}
      {late ? (
        <p class="review-note tone-warning">
          The time for this review ran out and {agent} was told so. You can still answer: it is recorded as a late
          decision.
        </p>
      ) : null}
      <div class="review-subject">
        {current.path !== null ? (
          <div class="review-file">
            <Icon name="file" />
            <div>
              <strong>{title(current.path)}</strong>
              <span class="review-path" title={current.path}>
                {reviewLocation(current.path)}
              </span>
            </div>
            {showingDocument ? (
              <span class="review-hint">Shown in the window</span>
            ) : (
              <button class="button button-quiet" onClick={() => void openPath(current.path!, "read")}>
                Open
              </button>
            )}
          </div>
        ) : (
          <div class="review-inline">
            <span class="review-label">Text to review</span>
            <pre class="review-text scroll-quiet">{current.content ?? ""}</pre>
          </div>
        )}
      </div>
      <label class="review-comment">
        <span class="review-label">Comments for {agent}</span>
        <textarea
          rows={4}
          placeholder="What should change? (optional for Approve)"
          value={comments.value}
          onInput={(event) => (comments.value = event.currentTarget.value)}
          aria-label="Review comments"
        />
      </label>
      <div class="review-actions">
        <button class="button button-success" disabled={busy.value} onClick={() => void decide("approved")}>
          Approve
        </button>
        <button class="button button-primary-outline" disabled={busy.value} onClick={() => void decide("changes_requested")}>
          Request changes
        </button>
        <button class="button button-ghost" disabled={busy.value} onClick={() => void decide("dismissed")}>
          Dismiss
        </button>
      </div>
    </aside>
  );
}
