// The chat screens' state (signals) and actions: full-screen chat mode and the one way back,
// the chat list, the open conversation, and the events that keep them live. Messages come
// over the WebSocket events (`chat`, `chat-presence`, `chat-deleted`), never by polling.

import { batch, computed, signal } from "@preact/signals";
import { ApiError, type View } from "../api";
import type { WindowEvent } from "../events";
import { adoptAccountName, identity } from "../identity";
import { takePlace } from "../scroll";
import { activate, activeTab, connection, files, openPath, setView, toast, windowState } from "../state";
import { chatApi, type ChatMessage, type ChatSummary, type Presence, type Workspace } from "./chatApi";
import { renderBodies } from "./messageHtml";

/** Messages shown at first; "Show earlier messages" adds this many more each time. */
export const PAGE = 150;

/** Render `bodies` before showing them, so Markdown never flashes as plain text; a failure
 * only means they show as plain text until the view asks again. */
async function renderFirst(bodies: string[]): Promise<void> {
  try {
    await renderBodies(bodies.filter(Boolean));
  } catch {
    // Shown as plain text; the conversation view retries.
  }
}

export interface ReturnPoint {
  docId: string;
  path: string;
  fileName: string;
  view: View;
}

export interface Conversation {
  path: string;
  workspace: string;
  title: string;
  description: string;
  participants: string[];
  messages: ChatMessage[];
  next: number;
  presence: Presence[];
  roles: Record<string, string>;
  avatars: Record<string, string>;
  deleted: boolean;
  loaded: boolean;
  /** Why this account may not read it (a private chat it is not, or no longer, on). */
  revoked?: string;
}

const AS_KEY = "quire.chat.as";
const COLLAPSED_KEY = "quire.chat.collapsed";
const TAB_KEY = "quire.chat.tab";
const HASH = /^#chats(?:=(.*))?$/;

function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function store(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Without storage the choice lasts until the page reloads.
  }
}

/** Whether chat mode fills the window. */
export const chatOpen = signal(false);
/** Where ← Back returns: the document and view the person came from (null: no document). */
export const returnTo = signal<ReturnPoint | null>(null);
export const workspaces = signal<Workspace[]>([]);
/** Whose chats the list shows; changing it never changes where Back returns. */
export const listWorkspace = signal<string | null>(null);
export const chats = signal<ChatSummary[]>([]);
export const chatsLoaded = signal(false);
export const listTab = signal<"pinned" | "all">(stored(TAB_KEY) === "pinned" ? "pinned" : "all");
export const listCollapsed = signal(stored(COLLAPSED_KEY) === "1");
/** The name the person posts and reads as (the `as` box). */
export const asName = signal(stored(AS_KEY) || identity().name);
export const conversation = signal<Conversation | null>(null);
/** Messages from others that arrived since the person last saw the bottom of the conversation. */
export const arrivals = signal<{ path: string; count: number; at: number }>({ path: "", count: 0, at: 0 });
/** Bumped when the person's own post should bring the view to the bottom. */
export const ownPost = signal(0);

export const unreadTotal = computed(() => chats.value.reduce((sum, chat) => sum + chat.unread, 0));

function reportError(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) return;
  toast(error instanceof Error ? error.message : String(error), "error");
}

function setHash(path: string | null): void {
  const hash = chatOpen.peek() ? (path ? `#chats=${encodeURIComponent(path)}` : "#chats") : "";
  if (location.hash === hash) return;
  history.replaceState(null, "", location.pathname + location.search + hash);
}

/** The workspace a path lies in (the longest served folder holding it). */
export function workspaceOf(path: string): string | null {
  const roots = [...workspaces.peek().map((item) => item.path), ...files.peek().map((file) => file.workspace)];
  return (
    roots
      .filter((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`))
      .sort((a, b) => b.length - a.length)[0] ?? null
  );
}

async function loadWorkspaces(): Promise<void> {
  try {
    workspaces.value = await chatApi.workspaces();
  } catch (error) {
    reportError(error);
  }
  if (listWorkspace.peek() === null) {
    const tab = activeTab.peek();
    listWorkspace.value = (tab && workspaceOf(tab.path)) ?? workspaces.peek()[0]?.path ?? null;
  }
}

/** Enter chat mode, remembering exactly where the person is; opens `path` when given. */
export async function openChats(path: string | null = null): Promise<void> {
  if (!chatOpen.peek()) {
    takePlace();
    const tab = activeTab.peek();
    returnTo.value = tab ? { docId: tab.docId, path: tab.path, fileName: tab.fileName, view: tab.view } : null;
    chatOpen.value = true;
  }
  setHash(path ?? conversation.peek()?.path ?? null);
  await loadWorkspaces();
  if (path) {
    const holder = workspaceOf(path);
    if (holder && holder !== listWorkspace.peek()) listWorkspace.value = holder;
  }
  await refreshChats();
  if (path) await selectChat(path);
}

/** ← Back: leave chat mode for exactly the document and view the person came from. */
export async function leaveChats(restore = true): Promise<void> {
  const point = returnTo.peek();
  batch(() => {
    chatOpen.value = false;
    returnTo.value = null;
  });
  setHash(null);
  if (!restore || !point) return;
  const tab = windowState.peek().tabs.find((item) => item.docId === point.docId);
  if (!tab) {
    await openPath(point.path, point.view === "read" ? "read" : "edit");
    const reopened = activeTab.peek();
    if (reopened && reopened.view !== point.view) await setView(reopened.docId, point.view);
    return;
  }
  if (windowState.peek().active !== tab.docId) await activate(tab.docId);
  if (tab.view !== point.view) await setView(tab.docId, point.view);
}

/** Leave chat mode and open the chat's note itself in the editor. */
export async function openAsNote(path: string): Promise<void> {
  await leaveChats(false);
  await openPath(path, "edit");
}

let listTimer: number | undefined;
let listRun = 0;

/** Reload the chat list (the picked workspace's, with unread counts for the `as` name). */
export async function refreshChats(): Promise<void> {
  window.clearTimeout(listTimer);
  const run = ++listRun;
  try {
    const found = await chatApi.list(listWorkspace.peek(), asName.peek());
    if (run !== listRun) return;
    const open = conversation.peek()?.path;
    chats.value = found.map((chat) => (chat.path === open && chatOpen.peek() ? { ...chat, unread: 0 } : chat));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) reportError(error);
  } finally {
    chatsLoaded.value = true;
  }
}

function refreshChatsSoon(delay = 250): void {
  window.clearTimeout(listTimer);
  listTimer = window.setTimeout(() => void refreshChats(), delay);
}

export function setListWorkspace(path: string): void {
  listWorkspace.value = path;
  chatsLoaded.value = false;
  chats.value = [];
  void refreshChats();
}

export function setListTab(tab: "pinned" | "all"): void {
  listTab.value = tab;
  store(TAB_KEY, tab);
}

export function setCollapsed(collapsed: boolean): void {
  listCollapsed.value = collapsed;
  store(COLLAPSED_KEY, collapsed ? "1" : "0");
}

let asTimer: number | undefined;
/** Signed in as an account on a team server: its username replaces the default `as` name (a
 * name typed in the `as` box stays), so posts are not labelled "Owner (via username)". */
export function takeAccountName(username: string): void {
  const before = identity().name;
  adoptAccountName(username);
  if (!stored(AS_KEY) && asName.peek() === before) asName.value = identity().name;
}

export function setAsName(name: string): void {
  asName.value = name;
  store(AS_KEY, name);
  window.clearTimeout(asTimer);
  asTimer = window.setTimeout(() => {
    if (!asName.peek().trim()) return;
    void refreshChats();
    const open = conversation.peek();
    if (open && !open.deleted) void fetchNew();
  }, 500);
}

function fromSummary(path: string): Partial<Conversation> {
  const summary = chats.peek().find((chat) => chat.path === path);
  return summary ? { title: summary.title, workspace: summary.workspace } : {};
}

/** Open the chat at `path` in the conversation pane, reading it whole (marks it read). */
export async function selectChat(path: string): Promise<void> {
  const empty: Conversation = {
    path,
    workspace: workspaceOf(path) ?? listWorkspace.peek() ?? "",
    title: "",
    description: "",
    participants: [],
    messages: [],
    next: 0,
    presence: [],
    roles: {},
    avatars: {},
    deleted: false,
    loaded: false,
    ...fromSummary(path),
  };
  conversation.value = empty;
  arrivals.value = { path, count: 0, at: 0 };
  setHash(path);
  try {
    const view = await chatApi.read(path, readerName());
    if (conversation.peek()?.path !== path) return;
    await renderFirst([view.description, ...view.messages.slice(-PAGE).map((message) => message.body)]);
    const current = conversation.peek();
    if (current?.path !== path) return;
    // Deleted (or access lost) while this read was on its way: it stays so.
    const gone = current.deleted ? { deleted: true, presence: [], revoked: current.revoked } : {};
    conversation.value = {
      ...empty,
      path: view.path,
      workspace: workspaceOf(view.path) ?? empty.workspace,
      title: view.title || empty.title || titleOf(view.path),
      description: view.description,
      participants: view.participants,
      messages: view.messages,
      next: view.next,
      presence: view.presence,
      roles: view.roles,
      avatars: view.avatars,
      loaded: true,
      ...gone,
    };
    chats.value = chats.peek().map((chat) => (chat.path === view.path ? { ...chat, unread: 0 } : chat));
  } catch (error) {
    if (conversation.peek()?.path !== path) return;
    if (error instanceof ApiError && error.status === 404) {
      conversation.value = { ...empty, deleted: true, loaded: true };
    } else if (error instanceof ApiError && error.status === 403) {
      conversation.value = { ...empty, deleted: true, loaded: true, revoked: error.message };
    } else {
      conversation.value = null;
      reportError(error);
    }
  }
}

export function closeConversation(): void {
  conversation.value = null;
  setHash(null);
}

function titleOf(path: string): string {
  const name = path.split("/").pop() ?? path;
  return name.replace(/\.(md|markdown|mdown|mkd|mdx)$/i, "");
}

/** The name reads and posts use: the `as` box, or the person's name when it is empty. */
export function readerName(): string {
  return asName.peek().trim() || identity().name;
}

let fetching: Promise<void> | null = null;
let fetchAgain = false;

/** Fetch what is new in the open chat (messages after the last one shown, presence, roles). */
export async function fetchNew(): Promise<void> {
  if (fetching) {
    fetchAgain = true;
    return fetching;
  }
  fetching = (async () => {
    do {
      fetchAgain = false;
      const open = conversation.peek();
      if (!open || !open.loaded || open.deleted) break;
      try {
        const view = await chatApi.read(open.path, readerName(), open.next);
        await renderFirst(view.messages.map((message) => message.body));
        const current = conversation.peek();
        if (!current || current.path !== open.path) break;
        const known = new Set(current.messages.map((message) => message.number));
        const fresh = view.messages.filter((message) => !known.has(message.number));
        const me = readerName().toLowerCase();
        const fromOthers = fresh.filter((message) => message.author.toLowerCase() !== me).length;
        conversation.value = {
          ...current,
          title: view.title || current.title,
          description: view.description,
          participants: view.participants,
          messages: fresh.length ? [...current.messages, ...fresh] : current.messages,
          next: Math.max(view.next, current.next),
          presence: view.presence,
          roles: view.roles,
          avatars: view.avatars,
        };
        if (fromOthers > 0) {
          const before = arrivals.peek();
          const count = before.path === open.path ? before.count + fromOthers : fromOthers;
          arrivals.value = { path: open.path, count, at: Date.now() };
        }
      } catch (error) {
        if (error instanceof ApiError && (error.status === 404 || error.type === "FileMissing")) {
          markDeleted(open.path);
          break;
        }
        if (error instanceof ApiError && error.status === 403) {
          conversation.value = { ...open, deleted: true, presence: [], revoked: error.message };
          break;
        }
        reportError(error);
        break;
      }
    } while (fetchAgain);
  })();
  try {
    await fetching;
  } finally {
    fetching = null;
  }
}

function markDeleted(path: string): void {
  const open = conversation.peek();
  if (open && open.path === path) conversation.value = { ...open, deleted: true, presence: [] };
  chats.value = chats.peek().filter((chat) => chat.path !== path);
}

/** Post `body` as the `as` name; a message brings the view to the bottom. */
export async function send(body: string): Promise<boolean> {
  const open = conversation.peek();
  if (!open || open.deleted) return false;
  try {
    const posted = await chatApi.post(open.path, readerName(), body);
    await fetchNew();
    if (posted.kind === "message") {
      ownPost.value++;
    } else {
      const what = { status: "Status", context: "Context report", role: "Role" }[posted.kind];
      toast(posted.cleared ? `${what} cleared (not added to the chat).` : `${what} set (not added to the chat).`);
    }
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) markDeleted(open.path);
    reportError(error);
    return false;
  }
}

/** Save (or with an empty role remove) `name`'s role in the open chat. */
export async function saveRole(path: string, name: string, role: string): Promise<boolean> {
  try {
    await chatApi.post(path, name, role.trim() ? `/role ${role.trim()}` : "/role");
    if (conversation.peek()?.path === path) await fetchNew();
    return true;
  } catch (error) {
    reportError(error);
    return false;
  }
}

export async function pinChat(path: string, pinned: boolean): Promise<void> {
  chats.value = chats.peek().map((chat) => (chat.path === path ? { ...chat, pinned } : chat));
  try {
    await chatApi.pin(path, pinned);
  } catch (error) {
    reportError(error);
    void refreshChats();
  }
}

export async function deleteChat(path: string): Promise<void> {
  try {
    await chatApi.remove(path);
    markDeleted(path);
    if (conversation.peek()?.path === path) closeConversation();
    toast("Chat deleted.", "success");
  } catch (error) {
    reportError(error);
  }
}

/** Create the chat `title` in `folder` (relative, ending in `/`) of the listed workspace. */
export async function createChat(
  title: string,
  folder: string,
  slug: string,
  invite: string[] = [],
  open = false,
): Promise<boolean> {
  const workspace = listWorkspace.peek();
  if (!workspace) {
    toast("No workspace to create the chat in.", "error");
    return false;
  }
  const base = `${workspace.replace(/\/+$/, "")}/${folder}`;
  const taken = new Set([...files.peek().map((file) => file.path), ...chats.peek().map((chat) => chat.path)]);
  let path = `${base}${slug}.md`;
  for (let index = 2; taken.has(path); index++) path = `${base}${slug}-${index}.md`;
  try {
    const created = await chatApi.create(path, title, invite, open);
    await refreshChats();
    await selectChat(created.path);
    return true;
  } catch (error) {
    reportError(error);
    return false;
  }
}

/** The window's event channel calls this with every event. */
export function handleChatEvent(event: WindowEvent): void {
  const path = typeof event.data.path === "string" ? event.data.path : "";
  const open = conversation.peek();
  switch (event.kind) {
    case "chat":
      if (open && open.path === path && chatOpen.peek()) void fetchNew();
      refreshChatsSoon(open?.path === path ? 400 : 150);
      break;
    case "chat-presence":
      if (open && open.path === path && chatOpen.peek()) void fetchNew();
      break;
    case "chat-deleted":
      markDeleted(path);
      refreshChatsSoon();
      break;
    case "files":
      if (chatOpen.peek()) refreshChatsSoon(400);
      break;
    default:
      break;
  }
}

// After the event socket reconnects, anything may have changed while it was down.
let wasOffline = false;
connection.subscribe((state) => {
  if (state === "offline") wasOffline = true;
  if (state !== "online" || !wasOffline) return;
  wasOffline = false;
  refreshChatsSoon(0);
  if (chatOpen.peek() && conversation.peek()) void fetchNew();
});

/** A `#chats` or `#chats=<path>` address opens chat mode once the page has loaded. */
export function openFromAddress(): void {
  const match = HASH.exec(location.hash);
  if (!match) {
    void refreshChats();
    return;
  }
  let path: string | null = null;
  try {
    path = match[1] ? decodeURIComponent(match[1]) : null;
  } catch {
    path = null;
  }
  void openChats(path);
}
