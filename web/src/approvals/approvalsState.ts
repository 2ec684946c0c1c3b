// Agent approvals in the window: the list (pending cards oldest first, recently ended ones,
// notices), the count for the badge and the tab title, the person's decisions, and optional
// browser notifications. Off (nothing shown) while the server answers 404: approvals disabled.

import { computed, effect, signal } from "@preact/signals";
import { ApiError, request } from "../api";
import type { components } from "../api/schema";

type Schemas = components["schemas"];
export type ApprovalCard = Schemas["ApprovalRecord"];
export type Notice = Schemas["NoticeRecord"];
export type Behavior = Schemas["ApprovalDecisionBody"]["behavior"];

export const approvalsEnabled = signal(false);
export const approvals = signal<ApprovalCard[]>([]);
export const notices = signal<Notice[]>([]);
export const approvalsOpen = signal(false);
export const approvalError = signal<string | null>(null);
export const waitingCount = computed(
  () => approvals.value.filter((card) => card.status === "pending").length,
);

const HARNESS_NAMES: Record<string, string> = { "claude-code": "Claude Code", codex: "Codex" };

/** Who asks: "Builder (Claude Code on build-box)", or "Claude Code on build-box". */
export function askedBy(card: { harness: string; machineLabel: string; agentName?: string | null }): string {
  const where = `${HARNESS_NAMES[card.harness] ?? card.harness} on ${card.machineLabel}`;
  return card.agentName ? `${card.agentName} (${where})` : where;
}

let seen = new Set<string>();

export async function refreshApprovals(): Promise<void> {
  try {
    const listed = await request<Schemas["ApprovalList"]>("GET", "/api/approvals");
    approvalsEnabled.value = true;
    notifyNew(listed.approvals);
    approvals.value = [...listed.approvals];
    notices.value = [...listed.notices];
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) approvalsEnabled.value = false;
  }
}

const ENDED_SHOWN = 20;

/** An `approval` event: its record replaces (or joins) the list at once, with no refetch. */
export function applyApprovalEvent(data: Record<string, unknown>): void {
  const card = data.approval as ApprovalCard | undefined;
  if (!card || typeof card.approvalId !== "string") {
    void refreshApprovals();
    return;
  }
  approvalsEnabled.value = true;
  const others = approvals.peek().filter((old) => old.approvalId !== card.approvalId);
  const pending = [...others.filter((old) => old.status === "pending"), ...(card.status === "pending" ? [card] : [])];
  pending.sort((a, b) => a.createdAt - b.createdAt || a.approvalId.localeCompare(b.approvalId));
  const ended = [...(card.status === "pending" ? [] : [card]), ...others.filter((old) => old.status !== "pending")];
  ended.sort((a, b) => b.createdAt - a.createdAt || b.approvalId.localeCompare(a.approvalId));
  const next = [...pending, ...ended.slice(0, ENDED_SHOWN)];
  notifyNew(next);
  approvals.value = next;
}

export async function decide(
  card: ApprovalCard,
  behavior: Behavior,
  extra: { message?: string; answers?: number[][]; other?: string[] } = {},
): Promise<void> {
  approvalError.value = null;
  try {
    const decided = await request<ApprovalCard>(
      "POST",
      `/api/approvals/${encodeURIComponent(card.approvalId)}/decision`,
      { input_hash: card.inputHash, behavior, ...extra },
    );
    applyApprovalEvent({ approval: decided });
  } catch (error) {
    approvalError.value = error instanceof Error ? error.message : String(error);
    await refreshApprovals();
  }
}

export async function dismissNotice(notice: Notice): Promise<void> {
  try {
    await request("POST", "/api/notices/dismiss", { session_id: notice.sessionId, kind: notice.kind });
  } catch (error) {
    approvalError.value = error instanceof Error ? error.message : String(error);
  }
  await refreshApprovals();
}

export const notificationsAllowed = signal(
  typeof Notification !== "undefined" && Notification.permission === "granted",
);

export async function askForNotifications(): Promise<void> {
  if (typeof Notification === "undefined") return;
  notificationsAllowed.value = (await Notification.requestPermission()) === "granted";
}

function notifyNew(cards: readonly ApprovalCard[]): void {
  const pending = cards.filter((card) => card.status === "pending");
  const fresh = pending.filter((card) => !seen.has(card.approvalId));
  const first = seen.size === 0 && approvals.peek().length === 0;
  seen = new Set(pending.map((card) => card.approvalId));
  if (first || !notificationsAllowed.peek()) return;
  for (const card of fresh) {
    try {
      new Notification("Quire: an agent is waiting", { body: `${askedBy(card)}: ${card.card.tool}`, tag: card.approvalId });
    } catch {
      // Notifications refused by the browser: the badge and the title still show it.
    }
  }
}

// The tab title carries the count: "(2) Quire".
let plainTitle: string | null = null;
effect(() => {
  const count = waitingCount.value;
  if (typeof document === "undefined") return;
  const current = document.title.replace(/^\(\d+\) /, "");
  plainTitle = current || plainTitle;
  document.title = count > 0 ? `(${count}) ${plainTitle ?? current}` : (plainTitle ?? current);
});
