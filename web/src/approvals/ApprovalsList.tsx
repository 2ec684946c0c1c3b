// The approvals list: every card waiting (oldest first), the recently ended ones, the
// notices (dismissible), and the offer of browser notifications.

import { Dialog } from "../chat/Popup";
import { ApprovalCardView } from "./ApprovalCardView";
import {
  approvalError,
  approvals,
  approvalsOpen,
  askForNotifications,
  askedBy,
  dismissNotice,
  notices,
  notificationsAllowed,
} from "./approvalsState";

export function ApprovalsList() {
  if (!approvalsOpen.value) return null;
  const close = () => (approvalsOpen.value = false);
  const cards = approvals.value;
  return (
    <Dialog title="Agent approvals" label="Agent approvals" close={close} wide class="approvals-dialog">
      {approvalError.value ? <p class="approval-error" role="alert">{approvalError.value}</p> : null}
      {!notificationsAllowed.value && typeof Notification !== "undefined" ? (
        <button class="button button-quiet" onClick={() => void askForNotifications()}>
          Notify me of new requests
        </button>
      ) : null}
      {notices.value.map((notice) => (
        <div class="approval-notice" key={`${notice.sessionId}-${notice.kind}`}>
          <span>
            {askedBy(notice)} {notice.message}
          </span>
          <button class="button button-quiet" onClick={() => void dismissNotice(notice)}>Dismiss</button>
        </div>
      ))}
      {cards.length === 0 ? <p class="approval-empty">Nothing waits for you.</p> : null}
      {cards.map((card) => (
        <ApprovalCardView card={card} key={card.approvalId} />
      ))}
    </Dialog>
  );
}

/** The cards of the agents in the chat at ``path`` (their last `quire chat wait`), shown in
 * the chat itself under the agent's chat name: waiting ones with their buttons, recently
 * ended ones saying how they ended. The chat note holds none of it. */
export function ChatApprovals({ path }: { path: string }) {
  const mine = approvals.value.filter((card) => card.chatPath === path);
  if (mine.length === 0) return null;
  return (
    <div class="chat-approvals" aria-label="Waiting for your approval">
      {mine.map((card) => (
        <ApprovalCardView card={card} key={card.approvalId} />
      ))}
    </div>
  );
}
