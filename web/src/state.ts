// The app's state, as signals, and the actions that change it. The server owns the window
// (tabs, active document, views, present mode): the browser asks it to change and mirrors the
// `window` events it sends back, so every open browser and every agent sees the same window.

import { applyApprovalEvent, refreshApprovals } from "./approvals/approvalsState";
import { openExportDialog } from "./exporting";
import { batch, computed, signal } from "@preact/signals";
import {
  api,
  ApiError,
  type FileEntry,
  type RecentDocument,
  type Review,
  type TabInfo,
  type View,
  type WindowInfo,
} from "./api";
import { keepLive } from "./collab";
import { takePlace } from "./scroll";
import type { ConnectionState, WindowEvent } from "./events";

export interface ActivityItem {
  path: string;
  author: string;
  kind: string;
  at: number;
}

export interface Conflict {
  docId: string;
  path: string;
  mine: string;
  disk: string;
}

export interface AgentEdit {
  docId: string;
  author: string;
  at: number;
  from: number | null;
  to: number | null;
}

export interface Toast {
  id: number;
  text: string;
  tone: "info" | "error" | "success";
  /** A button on the toast (Undo): running it closes the toast. */
  action?: ToastAction;
}

export interface ToastAction {
  label: string;
  run: () => void;
}

export interface ReviewNotice {
  reviewId: string;
  text: string;
  tone: "info" | "success" | "warning";
}

const EMPTY_WINDOW: WindowInfo = { tabs: [], active: null, view: null, present: false };

export const windowState = signal<WindowInfo>(EMPTY_WINDOW);
export const windowLoaded = signal(false);
export const files = signal<FileEntry[]>([]);
export const filesLoaded = signal(false);
export const recents = signal<RecentDocument[]>([]);
export const review = signal<Review | null>(null);
export const reviewNotice = signal<ReviewNotice | null>(null);
export const activity = signal<ActivityItem[]>(loadActivity());
export const unseenActivity = signal(0);
export const conflicts = signal<Record<string, Conflict>>({});
export const dirty = signal<Record<string, boolean>>({});
export const connection = signal<ConnectionState>("connecting");
export const signedOut = signal(false);
export const sidebarOpen = signal(window.matchMedia("(min-width: 760px)").matches);
export const drawerOpen = signal(false);
export const paletteOpen = signal(false);
/** The Settings page (its Agents section: connecting coding agents). */
export const settingsOpen = signal(false);
export const toasts = signal<Toast[]>([]);
/** Lines to scroll to once a document's view is showing it (from `open` with a line). */
export const pendingLines = signal<Record<string, number>>({});
/** The latest agent edit per document: views flash the change with the agent's name. */
export const agentEdits = signal<Record<string, AgentEdit>>({});

export const activeTab = computed<TabInfo | null>(() => {
  const state = windowState.value;
  return state.tabs.find((tab) => tab.docId === state.active) ?? null;
});
export const presenting = computed(() => windowState.value.present && activeTab.value !== null);

let toastId = 0;
export function toast(text: string, tone: Toast["tone"] = "info", action?: ToastAction): void {
  const id = ++toastId;
  toasts.value = [...toasts.value.slice(-3), { id, text, tone, ...(action ? { action } : {}) }];
  // A toast with an Undo stays long enough to reach for it.
  window.setTimeout(() => dismissToast(id), action ? 10_000 : tone === "error" ? 7000 : 4000);
}

export function dismissToast(id: number): void {
  toasts.value = toasts.value.filter((item) => item.id !== id);
}

function reportError(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) return;
  toast(error instanceof Error ? error.message : String(error), "error");
}

function setWindow(state: WindowInfo): void {
  const before = windowState.peek();
  const next = state.tabs?.find((tab) => tab.docId === state.active);
  const now = before.tabs.find((tab) => tab.docId === before.active);
  // A view switch from elsewhere (an agent, another window): keep the place all the same.
  if (now && next && (now.docId !== next.docId || now.view !== next.view || state.present !== before.present)) {
    takePlace();
  }
  batch(() => {
    windowState.value = { ...EMPTY_WINDOW, ...state, tabs: state.tabs ?? [] };
    windowLoaded.value = true;
  });
  keepLive(windowState.value.tabs.map((tab) => tab.docId));
}

// Answers to `GET /api/window` can come back in any order, and after a `window` event the
// server pushed meanwhile: only the newest request's answer is shown, and only when no event
// came while it was out (the event already holds a state at least as new).
let windowAsks = 0;
let windowPushes = 0;
let newestWindow: Promise<void> = Promise.resolve();

async function loadWindow(ask: number, pushes: number): Promise<void> {
  try {
    const state = await api.window();
    if (ask === windowAsks && pushes === windowPushes) setWindow(state);
  } catch (error) {
    reportError(error);
  }
}

/** Fetch the window state; resolves once the newest fetch made meanwhile has answered too,
 * so a caller reads the window as it is now. */
export async function refreshWindow(): Promise<void> {
  newestWindow = loadWindow(++windowAsks, windowPushes);
  let waited: Promise<void> | null = null;
  while (waited !== newestWindow) {
    waited = newestWindow;
    await waited;
  }
}

/** List the workspaces' files again; `arriving` sees the new list just before it is shown (in
 * the same update, so nothing renders in between). */
export async function refreshFiles(arriving?: (entries: FileEntry[]) => void): Promise<void> {
  try {
    const entries = await api.files();
    batch(() => {
      arriving?.(entries);
      files.value = entries;
    });
  } catch (error) {
    reportError(error);
  } finally {
    filesLoaded.value = true;
  }
}

export async function refreshRecents(): Promise<void> {
  try {
    recents.value = await api.recent(12);
  } catch (error) {
    reportError(error);
  }
}

export async function refreshReview(): Promise<void> {
  try {
    const active = await api.activeReview();
    const shown = review.value;
    if (active) {
      if (shown && shown.reviewId !== active.reviewId && shown.status !== "decided") {
        const ended = await api.review(shown.reviewId).catch(() => null);
        if (ended?.status === "superseded") supersededNotice(ended, active.reviewId);
      }
      review.value = active;
      return;
    }
    if (shown) {
      // Nothing pending: the shown review ended. One whose time ran out stays answerable
      // (recorded as late); one decided or replaced elsewhere goes away.
      const ended = await api.review(shown.reviewId).catch(() => null);
      if (ended?.status === "timeout") {
        review.value = ended;
        return;
      }
      if (ended?.status === "superseded") supersededNotice(ended, "");
    }
    review.value = null;
  } catch (error) {
    reportError(error);
  }
}

function supersededNotice(ended: Review, newer: string): void {
  reviewNotice.value = {
    reviewId: newer,
    text: `The earlier review from ${agentName(ended.requestedBy)} was superseded by a newer request.`,
    tone: "warning",
  };
}

/** Hide a review whose time ran out without answering it. */
export function hideReview(): void {
  review.value = null;
}

/** How an author reads in the window: an agent by the name it gave (or "Agent" when it gave
 * none); the person's own changes, from this or another browser window, are "You". */
export function agentName(author: string): string {
  if (!author || author === UNNAMED_AGENT) return "Agent";
  if (isPerson(author)) return "You";
  return author;
}

export const PERSON = "person";
/** The author of an agent's change when the agent named nobody. */
const UNNAMED_AGENT = "agent";
/** The signed-in person: the author of what a browser window changes through the API. */
const OWNER = "owner";

/** Whether `author` is the person at this window rather than an agent. */
export function isPerson(author: string): boolean {
  return author === PERSON || author === OWNER;
}

/** The document's unsaved and conflict state, as the server has it. */
const stateTimers = new Map<string, number>();
export function refreshDocumentState(docId: string, delay = 0): void {
  window.clearTimeout(stateTimers.get(docId));
  stateTimers.set(
    docId,
    window.setTimeout(() => {
      stateTimers.delete(docId);
      void api
        .documentState(docId)
        .then((state) => {
          markDirty(docId, state.dirty);
          const rest = { ...conflicts.value };
          if (state.conflict) {
            rest[docId] = { docId, path: state.path, mine: state.conflict.mine, disk: state.conflict.disk };
          } else {
            delete rest[docId];
          }
          conflicts.value = rest;
        })
        .catch(() => undefined);
    }, delay),
  );
}

export function boot(): void {
  const notice = /^#notice=(.*)$/.exec(location.hash);
  if (notice) {
    history.replaceState(null, "", location.pathname + location.search);
    toast(decodeURIComponent(notice[1] ?? ""), "error");
  }
  // An `/export?path=&format=` link opened the file, then sent the window here.
  const asked = /^#export=([a-z]+)$/.exec(location.hash);
  if (asked) history.replaceState(null, "", location.pathname + location.search);
  void refreshWindow().then(() => {
    const tab = activeTab.peek();
    if (asked && tab) openExportDialog(tab.path, asked[1]);
  });
  void refreshFiles();
  void refreshRecents();
  refreshPending();
}

/** The reviews and approvals waiting on the person, fetched (again). */
export function refreshPending(): void {
  void refreshReview();
  void refreshApprovals();
}

/** After the event socket reconnects: anything may have changed while it was down. */
export function resync(): void {
  void refreshWindow();
  void refreshFiles();
  const tab = activeTab.peek();
  if (tab) refreshDocumentState(tab.docId);
  void refreshRecents();
  refreshPending();
}

export async function openPath(path: string, mode?: "read" | "edit", line?: number): Promise<void> {
  try {
    const opened = await api.open(path, mode, line);
    if (line) pendingLines.value = { ...pendingLines.value, [opened.docId]: line };
    await refreshWindow();
    void refreshRecents();
    if (!window.matchMedia("(min-width: 760px)").matches) sidebarOpen.value = false;
  } catch (error) {
    reportError(error);
  }
}

export async function activate(docId: string): Promise<void> {
  if (windowState.value.active === docId) return;
  windowState.value = { ...windowState.value, active: docId };
  try {
    setWindow(await api.activate(docId));
  } catch (error) {
    reportError(error);
    void refreshWindow();
  }
}

export async function setView(docId: string, view: View): Promise<void> {
  takePlace();
  const state = windowState.value;
  windowState.value = {
    ...state,
    tabs: state.tabs.map((tab) => (tab.docId === docId ? { ...tab, view } : tab)),
    view: state.active === docId ? view : state.view,
  };
  try {
    setWindow(await api.setView(docId, view));
  } catch (error) {
    reportError(error);
    void refreshWindow();
  }
}

export async function closeTab(docId: string): Promise<void> {
  try {
    setWindow(await api.close(docId));
  } catch (error) {
    reportError(error);
  }
}

export async function save(tab: TabInfo | null = activeTab.value): Promise<void> {
  if (!tab) return;
  try {
    await api.save(tab.path);
    markDirty(tab.docId, false);
    toast(`Saved ${tab.fileName}`, "success");
  } catch (error) {
    reportError(error);
  }
}

export async function present(): Promise<void> {
  takePlace();
  const tab = activeTab.value;
  if (!tab) {
    toast("Open a document first, then present it.");
    return;
  }
  try {
    await api.present(tab.path);
    await refreshWindow();
  } catch (error) {
    reportError(error);
  }
}

export async function leavePresent(): Promise<void> {
  takePlace();
  windowState.value = { ...windowState.value, present: false };
  try {
    setWindow(await api.leavePresent());
  } catch (error) {
    reportError(error);
  }
}

export async function toggleTask(docId: string, line: number, checked: boolean): Promise<boolean> {
  try {
    await api.toggleTask(docId, line, checked);
    markDirty(docId, true);
    return true;
  } catch (error) {
    reportError(error);
    return false;
  }
}

export async function resolveConflict(docId: string, keep: "mine" | "disk"): Promise<void> {
  try {
    await api.resolveConflict(docId, keep);
    const rest = { ...conflicts.value };
    delete rest[docId];
    conflicts.value = rest;
    markDirty(docId, keep === "mine");
    toast(keep === "mine" ? "Kept your version; save to write it to disk." : "Took the version on disk.");
  } catch (error) {
    reportError(error);
  }
}

export function markDirty(docId: string, value: boolean): void {
  if (Boolean(dirty.value[docId]) === value) return;
  dirty.value = { ...dirty.value, [docId]: value };
}

export async function decideReview(verdict: "approved" | "changes_requested" | "dismissed", comments: string) {
  const shown = review.value;
  if (!shown) return;
  try {
    const record = await api.decide(shown.reviewId, verdict, comments);
    const words = { approved: "Approved", changes_requested: "Changes requested", dismissed: "Dismissed" }[verdict];
    const late = record?.late ?? false;
    reviewNotice.value = {
      reviewId: shown.reviewId,
      text: late
        ? `${words}. The review's time had run out, so this was recorded as a late decision.`
        : `${words}. ${agentName(shown.requestedBy)} has been told.`,
      tone: late ? "warning" : "success",
    };
    review.value = null;
    window.setTimeout(() => {
      if (reviewNotice.value?.reviewId === shown.reviewId) reviewNotice.value = null;
    }, 5000);
    void refreshReview();
  } catch (error) {
    reportError(error);
  }
}

function loadActivity(): ActivityItem[] {
  try {
    const stored = JSON.parse(sessionStorage.getItem("quire.activity") ?? "[]") as ActivityItem[];
    return Array.isArray(stored) ? stored.slice(0, 200) : [];
  } catch {
    return [];
  }
}

function addActivity(item: ActivityItem): void {
  const rest = activity.value.filter((old) => !(old.path === item.path && item.at - old.at < 1500));
  activity.value = [item, ...rest].slice(0, 200);
  if (!drawerOpen.value) unseenActivity.value++;
  try {
    sessionStorage.setItem("quire.activity", JSON.stringify(activity.value));
  } catch {
    // Storage full or off: the drawer still shows this session's activity.
  }
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const num = (value: unknown): number | null => (typeof value === "number" ? value : null);

function docIdFor(data: Record<string, unknown>): string | null {
  const id = text(data.docId);
  if (id) return id;
  const path = text(data.path);
  return windowState.value.tabs.find((tab) => tab.path === path)?.docId ?? null;
}

export function handleEvent(event: WindowEvent): void {
  const data = event.data;
  switch (event.kind) {
    case "window":
      windowPushes += 1;
      setWindow(data as unknown as WindowInfo);
      break;
    case "open": {
      const line = num(data.line);
      const docId = text(data.docId);
      if (line && docId) pendingLines.value = { ...pendingLines.value, [docId]: line };
      void refreshRecents();
      break;
    }
    case "present":
      void refreshWindow();
      break;
    case "review": {
      const shown = (data.review as Review | undefined) ?? null;
      if (shown && shown.status === "superseded" && review.value?.reviewId === shown.reviewId) {
        supersededNotice(shown, shown.supersededBy ?? "");
      }
      void refreshReview();
      break;
    }
    case "activity": {
      const path = text(data.path);
      if (!path || isPerson(text(data.author))) break;
      addActivity({ path, author: agentName(text(data.author)), kind: text(data.kind) || "edit", at: Date.now() });
      if (text(data.kind) !== "edit") void refreshFiles();
      break;
    }
    case "conflict": {
      const docId = docIdFor(data);
      if (!docId) break;
      if (data.resolved === true) {
        // Resolved here, in another window, or the file went back to what the buffer rests on.
        const rest = { ...conflicts.value };
        delete rest[docId];
        conflicts.value = rest;
        if (typeof data.dirty === "boolean") markDirty(docId, data.dirty);
        break;
      }
      const mine = text(data.mine ?? data.buffer ?? data.live ?? data.ours);
      const disk = text(data.disk ?? data.theirs ?? data.file);
      conflicts.value = { ...conflicts.value, [docId]: { docId, path: text(data.path), mine, disk } };
      markDirty(docId, true);
      break;
    }
    case "document": {
      const docId = docIdFor(data);
      if (!docId) break;
      const shown = windowState.value.tabs.some((tab) => tab.docId === docId);
      if (typeof data.dirty === "boolean") markDirty(docId, data.dirty);
      else if (shown) refreshDocumentState(docId, 150);
      const author = text(data.author);
      if (author && !isPerson(author)) {
        const from = num(data.from ?? data.start);
        const to = num(data.to ?? data.end);
        agentEdits.value = {
          ...agentEdits.value,
          [docId]: { docId, author: agentName(author), at: Date.now(), from, to },
        };
      }
      if (data.resolved === true || data.conflict === false) {
        const rest = { ...conflicts.value };
        delete rest[docId];
        conflicts.value = rest;
      }
      break;
    }
    case "files":
      void refreshFiles();
      break;
    case "approval":
      applyApprovalEvent(data);
      break;
    case "notice":
      void refreshApprovals();
      break;
    case "export": {
      // An agent asked (the export tool without output_path): show the dialog to the person.
      const path = text(data.path);
      if (path) openExportDialog(path, data.format);
      break;
    }
    default:
      break;
  }
}
