// The chat part of the HTTP API (`/api/chats…`) and `/api/render`, as the chat screens call
// them: same origin, session cookie, JSON; errors are the app's ApiError.

import { request } from "../api";

export interface ChatSummary {
  path: string;
  workspace: string;
  title: string;
  messageCount: number;
  /** Epoch ms of the last message (the file's time without one). */
  lastActivity: number;
  unread: number;
  pinned: boolean;
  /** Only the accounts on its member list can open it (team servers). */
  private?: boolean;
}

/** Who can open a chat: open (no members), or private with its members; its owner. */
export interface ChatMembers {
  path: string;
  private: boolean;
  members: string[];
  owner: string | null;
}

export interface ChatMessage {
  number: number;
  author: string;
  /** As written in the header: `2026-10-02T14:03:05Z`. */
  time: string;
  body: string;
  /** Lower-cased names the message mentions (`all` and `everyone` included). */
  mentions: string[];
}

export type PresenceState = "waiting" | "thinking" | "working";

export interface ContextReport {
  text: string;
  percent: number;
}

export interface Presence {
  name: string;
  state: PresenceState;
  status: string | null;
  context: ContextReport | null;
}

export interface ChatView {
  path: string;
  title: string | null;
  description: string;
  participants: string[];
  messages: ChatMessage[];
  next: number;
  presence: Presence[];
  roles: Record<string, string>;
  /** Author label → picture name of the avatar saved for it. */
  avatars: Record<string, string>;
}

export type Posted = { kind: "message"; number: number } | { kind: "status" | "context" | "role"; cleared: boolean };

export interface GifInfo {
  name: string;
  builtin: boolean;
}

export interface Workspace {
  path: string;
  name: string;
}

export interface RenderedText {
  html: string;
  has_math: boolean;
  has_mermaid: boolean;
}

const q = encodeURIComponent;

function query(values: Record<string, string | number | undefined | null>): string {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined && value !== null && value !== "")
    .map(([name, value]) => `${name}=${q(String(value))}`)
    .join("&");
}

/** The URL of a chat picture (served inert: as an <img> only, never inlined). */
export function gifUrl(workspace: string, name: string): string {
  return `/api/chats/gif?${query({ workspace, name })}`;
}

export const chatApi = {
  workspaces: async () => (await request<{ workspaces: Workspace[] }>("GET", "/api/workspaces")).workspaces,
  list: async (workspace: string | null, as: string) =>
    (await request<{ chats: ChatSummary[] }>("GET", `/api/chats?${query({ workspace, as })}`)).chats,
  // + New asks for a private chat by default: the server makes one on a team server only.
  create: (path: string, title: string, invite: string[] = [], open = false) =>
    request<{ path: string; created: boolean; converted: boolean; private: boolean }>("POST", "/api/chats", {
      path,
      title,
      privateByDefault: true,
      ...(open ? { private: false } : invite.length ? { invite } : {}),
    }),
  people: async (workspace: string) =>
    (await request<{ people: string[] }>("GET", `/api/chats/people?${query({ workspace })}`)).people,
  members: (path: string) => request<ChatMembers>("GET", `/api/chats/members?${query({ path })}`),
  changeMembers: (path: string, action: "add" | "remove" | "private", username?: string) =>
    request<ChatMembers>("POST", "/api/chats/members", { path, action, ...(username ? { username } : {}) }),
  read: (path: string, as: string, after?: number) =>
    request<ChatView>("GET", `/api/chats/read?${query({ path, as, after })}`),
  post: (path: string, as: string, body: string) => request<Posted>("POST", "/api/chats/post", { path, as, body }),
  pin: (path: string, pinned: boolean) => request<{ pinned: boolean }>("POST", "/api/chats/pin", { path, pinned }),
  remove: (path: string) => request<{ deleted: boolean }>("POST", "/api/chats/delete", { path }),
  gifs: (workspace: string) =>
    request<{ gifs: GifInfo[]; avatars: Record<string, string> }>("GET", `/api/chats/gifs?${query({ workspace })}`),
  render: async (texts: string[]) =>
    (await request<{ items: RenderedText[] }>("POST", "/api/render", { texts })).items,
};
