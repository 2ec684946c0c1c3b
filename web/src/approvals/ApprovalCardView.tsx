// One approval card: the command exactly as it runs (hidden characters already written as
// \u{…} escapes by the server), the agent's own description labelled as the agent's, a write's
// first lines (the rest one tap away), an edit's old and new text, other input as JSON, or the
// agent's questions; then Allow, Deny, Deny with reason and Allow for this session. An ended
// card says how it ended (who decided what and when) and has no buttons, option or Other box.

import { useState } from "preact/hooks";
import { askedBy, decide, type ApprovalCard } from "./approvalsState";

const ENDED: Record<string, string> = {
  decided: "Decided",
  expired: "Expired: the agent's terminal answers it",
  answered: "Answered in the agent's terminal",
};

function when(ms: number): string {
  return new Date(ms).toLocaleTimeString();
}

function Body({ card }: { card: ApprovalCard }) {
  const view = card.card;
  const [more, setMore] = useState(false);
  switch (view.kind) {
    case "command":
      return (
        <div class="approval-body">
          <pre class="approval-command" data-testid="approval-command">{view.text}</pre>
          {view.description ? (
            <p class="approval-description">
              <span class="approval-label">The agent says:</span> {view.description}
            </p>
          ) : null}
        </div>
      );
    case "write":
      return (
        <div class="approval-body">
          <p class="approval-file">Write <code title={view.file ?? undefined}>{view.file}</code></p>
          <pre class="approval-command">{view.text}{more ? view.rest : ""}</pre>
          {view.rest && !more ? (
            <button class="button button-quiet" onClick={() => setMore(true)}>Show the rest</button>
          ) : null}
        </div>
      );
    case "edit":
      return (
        <div class="approval-body">
          <p class="approval-file">Edit <code title={view.file ?? undefined}>{view.file}</code></p>
          {view.changes.map((change, index) => (
            <div class="approval-change" key={index}>
              <pre class="approval-old">{change.old}</pre>
              <pre class="approval-new">{change.new}</pre>
            </div>
          ))}
        </div>
      );
    default:
      return (
        <div class="approval-body">
          <pre class="approval-command">{view.text}</pre>
        </div>
      );
  }
}

/** An ended question card: each question and, when the person answered it here, the answer;
 * no buttons and no Other box. */
function EndedQuestions({ card }: { card: ApprovalCard }) {
  const given = card.decision?.updatedInput?.answers as Record<string, unknown> | undefined;
  return (
    <div class="approval-questions">
      {card.card.questions.map((question, q) => {
        const answer = given?.[question.question];
        return (
          <div class="approval-question approval-question-ended" key={q}>
            <p class="approval-question-text">{question.header ? `${question.header}: ` : ""}{question.question}</p>
            {typeof answer === "string" ? <p class="approval-answer">Answered: {answer}</p> : null}
          </div>
        );
      })}
    </div>
  );
}

function Questions({ card }: { card: ApprovalCard }) {
  const questions = card.card.questions;
  const [picks, setPicks] = useState<number[][]>(questions.map(() => []));
  const [other, setOther] = useState<string[]>(questions.map(() => ""));
  const pick = (q: number, option: number, multiple: boolean) => {
    const next = picks.map((chosen) => [...chosen]);
    const chosen = next[q] ?? [];
    next[q] = multiple
      ? chosen.includes(option) ? chosen.filter((o) => o !== option) : [...chosen, option]
      : [option];
    setPicks(next);
    if (!multiple && questions.length === 1 && !other[0]) {
      void decide(card, "allow", { answers: next, other });
    }
  };
  return (
    <div class="approval-questions">
      {questions.map((question, q) => (
        <fieldset class="approval-question" key={q}>
          <legend>{question.header ? `${question.header}: ` : ""}{question.question}</legend>
          {question.options.map((option, o) =>
            question.multiple ? (
              <label key={o} class="approval-option">
                <input type="checkbox" checked={picks[q]?.includes(o)} onChange={() => pick(q, o, true)} />
                {option.label}
                {option.description ? <small> {option.description}</small> : null}
              </label>
            ) : (
              <button key={o} class="button approval-option" onClick={() => pick(q, o, false)} title={option.description}>
                {option.label}
              </button>
            ),
          )}
          <input
            class="approval-other"
            placeholder="Other"
            aria-label={`Other answer to ${question.question}`}
            value={other[q]}
            onInput={(event) => setOther(other.map((text, i) => (i === q ? event.currentTarget.value : text)))}
          />
        </fieldset>
      ))}
      <button class="button button-primary" onClick={() => void decide(card, "allow", { answers: picks, other })}>
        Send
      </button>
    </div>
  );
}

function Buttons({ card }: { card: ApprovalCard }) {
  const [reasoning, setReasoning] = useState(false);
  const [reason, setReason] = useState("");
  const question = card.card.kind === "question";
  return (
    <div class="approval-actions">
      {question ? null : (
        <button class="button button-primary" onClick={() => void decide(card, "allow")}>Allow</button>
      )}
      {card.sessionAllows.length > 0 && !question ? (
        <button
          class="button"
          onClick={() => void decide(card, "allow_session")}
          title={`Allows until the session ends: ${card.sessionAllows.join(", ")}`}
        >
          Allow for this session ({card.sessionAllows.join(", ")})
        </button>
      ) : null}
      <button class="button" onClick={() => void decide(card, "deny")}>Deny</button>
      {reasoning ? (
        <span class="approval-reason">
          <input
            aria-label="Reason the agent reads"
            placeholder="Reason (the agent reads it word for word)"
            value={reason}
            onInput={(event) => setReason(event.currentTarget.value)}
          />
          <button class="button" onClick={() => void decide(card, "deny", { message: reason })}>Send denial</button>
        </span>
      ) : (
        <button class="button button-quiet" onClick={() => setReasoning(true)}>Deny with reason</button>
      )}
    </div>
  );
}

/** How an ended card ended: "Decided: allowed by you at 10:42:07", "Expired: …". */
export function endedText(card: ApprovalCard): string {
  const how = ENDED[card.status] ?? card.status;
  const decision = card.decision;
  if (card.status !== "decided" || !decision) return how;
  const what =
    decision.behavior === "deny"
      ? "denied"
      : decision.updatedPermissions?.length
        ? "allowed for this session"
        : card.card.kind === "question"
          ? "answered"
          : "allowed";
  return `${how}: ${what} by you at ${when(card.decidedAt ?? 0)}`;
}

export function ApprovalCardView({ card }: { card: ApprovalCard }) {
  const active = card.status === "pending";
  const question = card.card.kind === "question";
  return (
    <article class={`approval-card approval-${card.status}`} data-approval-id={card.approvalId}>
      <header class="approval-head">
        <strong>{askedBy(card)}</strong> <span class="approval-tool">{card.card.tool}</span>
        {card.card.hidden ? <span class="pill approval-hidden" title="Hidden characters are shown as \u{…} escapes">hidden characters</span> : null}
      </header>
      <Body card={card} />
      {question && active ? <Questions card={card} /> : null}
      {question && !active ? <EndedQuestions card={card} /> : null}
      {active ? <Buttons card={card} /> : <p class="approval-ended" role="status">{endedText(card)}</p>}
    </article>
  );
}
