// The toolbar's approvals button beside Chats: "N waiting" opens the approvals list.

import { approvalsEnabled, approvalsOpen, notices, waitingCount } from "./approvalsState";

export function ApprovalsButton() {
  if (!approvalsEnabled.value) return null;
  const waiting = waitingCount.value;
  const noticed = notices.value.length;
  return (
    <button
      class={`button button-quiet approvals-button ${waiting ? "waiting" : ""}`}
      onClick={() => (approvalsOpen.value = true)}
      title={waiting ? `${waiting} waiting for your approval` : "Agent approvals"}
      aria-label={waiting ? `Approvals, ${waiting} waiting` : "Approvals"}
    >
      {waiting > 0 ? (
        <span class="badge approvals-badge">{waiting} waiting</span>
      ) : (
        <span class="approvals-button-label">Approvals{noticed ? ` · ${noticed}` : ""}</span>
      )}
    </button>
  );
}
