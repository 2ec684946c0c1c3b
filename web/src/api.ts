// The HTTP API of `quire serve`, as the browser calls it: same origin, session cookie, JSON.

import type { components } from "./api/schema";

export type View = "read" | "edit" | "source";
export type Decision = "approved" | "changes_requested" | "dismissed";

/** The API's answer shapes, generated from the server's OpenAPI document (never by hand). */
type Schemas = components["schemas"];

export type FileEntry = Schemas["WorkspaceFile"];
export type Health = Schemas["Health"];
export type TabInfo = Schemas["Tab"];
export type WindowInfo = Schemas["Window"];
export type RecentDocument = Schemas["RecentDocument"];
export type Rendered = Schemas["RenderedDocument"];
export type RenderedBlocks = Schemas["RenderedBlocks"];
export type Review = Schemas["ReviewRecord"];
export type SearchMode = Schemas["SearchPage"]["mode"];
/** One file that matches a search (or a title that fits quick open's query); each match in
 * `snippet` is wrapped in U+0002 … U+0003 (see snippets.ts). */
export type SearchHit = Schemas["SearchHit"];
export type Unreadable = Schemas["Unreadable"];
/** One page of a search: one hit per file; `nextCursor` asks for the next page. */
export type SearchPage = Schemas["SearchPage"];
export type Backlink = Schemas["Backlink"];
export type Backlinks = Schemas["Backlinks"];
export type Titles = Schemas["Titles"];

export interface SearchOptions {
  mode?: SearchMode;
  cursor?: string | null;
  limit?: number;
}

export type AgentState = Schemas["AgentStatus"]["state"];
export type AgentInfo = Schemas["AgentStatus"];
export type HookInfo = Schemas["HookStatus"];
export type AgentsOverview = Schemas["AgentsOverview"];
export type Outcome = Schemas["AgentOutcome"];
export type Opened = Schemas["OpenedDocument"];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called when the server answers 401: the session cookie is gone or was never set. */
export function onUnauthorized(listener: Listener): void {
  unauthorizedListeners.add(listener);
}

/** Tell the app this browser's session is gone (a 401, or a socket closed with 4401). */
export function notifyUnauthorized(): void {
  unauthorizedListeners.forEach((listener) => listener());
}

export async function request<T>(method: string, url: string, body?: unknown): Promise<T> {
  // A Blob goes as its bytes (an upload); anything else as JSON.
  const raw = body instanceof Blob;
  const init: RequestInit = {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": raw ? "application/octet-stream" : "application/json" },
  };
  if (body !== undefined) init.body = raw ? body : JSON.stringify(body);
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ApiError(0, "Offline", "Quire's server cannot be reached. Is `quire serve` still running?");
  }
  if (response.status === 401) notifyUnauthorized();
  const text = await response.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const error = (data as { error?: { type?: string; message?: string } } | null)?.error;
    throw new ApiError(
      response.status,
      error?.type ?? `HTTP${response.status}`,
      error?.message ?? `The server answered ${response.status} ${response.statusText}.`,
    );
  }
  return data as T;
}

const get = <T>(url: string) => request<T>("GET", url);
const post = <T>(url: string, body: unknown) => request<T>("POST", url, body);
const q = encodeURIComponent;

type FilesPage = Schemas["FilePage"];

export const api = {
  health: () => get<Health>("/health"),
  window: () => get<WindowInfo>("/api/window"),
  async files(): Promise<FileEntry[]> {
    const all: FileEntry[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: FilesPage = await get<FilesPage>(`/api/files?limit=1000${cursor ? `&cursor=${q(cursor)}` : ""}`);
      all.push(...page.files);
      cursor = page.nextCursor;
      if (page.files.length === 0) break;
    }
    return all;
  },
  async recent(limit = 12): Promise<RecentDocument[]> {
    const data = await get<RecentDocument[] | { recent?: RecentDocument[]; documents?: RecentDocument[] }>(
      `/api/recent?limit=${limit}`,
    );
    return Array.isArray(data) ? data : (data.recent ?? data.documents ?? []);
  },
  open: (path: string, mode?: "read" | "edit", line?: number) =>
    post<Opened>("/api/documents/open", { path, ...(mode ? { mode } : {}), ...(line ? { line } : {}) }),
  save: (path: string) => post<{ ok: boolean; path: string }>("/api/documents/save", { path }),
  setView: (docId: string, view: View) => post<WindowInfo>("/api/window/view", { docId, view }),
  activate: (docId: string) => post<WindowInfo>("/api/window/activate", { docId }),
  close: (docId: string) => post<WindowInfo>("/api/window/close", { docId }),
  present: (path?: string) => post<{ ok: boolean; path: string }>("/api/window/present", path ? { path } : {}),
  leavePresent: () => post<WindowInfo>("/api/window/leave-present", {}),
  /** The Read view's HTML; `head` asks for a long document's beginning first (`partial`). */
  render: (docId: string, head = false) =>
    get<Rendered>(`/api/documents/render?docId=${q(docId)}${head ? "&part=head" : ""}`),
  /** The Read view by block: only the blocks changed since `since` (a version answered before). */
  blocks: (docId: string, head = false, since?: string) =>
    get<RenderedBlocks>(
      `/api/documents/blocks?docId=${q(docId)}${head ? "&part=head" : ""}${since ? `&since=${q(since)}` : ""}`,
    ),
  documentState: (docId: string) =>
    get<{ docId: string; path: string; dirty: boolean; conflict: { mine: string; disk: string } | null }>(
      `/api/documents/state?docId=${q(docId)}`,
    ),
  toggleTask: (docId: string, line: number, checked: boolean) =>
    post<{ ok: boolean }>("/api/documents/toggle-task", { docId, line, checked }),
  resolveConflict: (docId: string, keep: "mine" | "disk") =>
    post<{ ok: boolean }>("/api/documents/resolve-conflict", { docId, keep }),
  async activeReview(): Promise<Review | null> {
    return (await get<Schemas["ActiveReview"]>("/api/reviews/active")).review;
  },
  review: (id: string) => get<Schemas["CheckedReview"]>(`/api/reviews/${q(id)}`),
  decide(id: string, verdict: Decision, comments: string): Promise<Review> {
    const body = comments.trim() ? { verdict, comments } : { verdict };
    return post<Review>(`/api/reviews/${q(id)}/decision`, body);
  },
  agents: () => get<AgentsOverview>("/api/agents"),
  connectAgent: (id: string) => post<Outcome>(`/api/agents/${q(id)}/connect`, {}),
  changeHook: (chat: boolean, remove: boolean) => post<Outcome>("/api/agents/hook", { chat, remove }),
  search: (query: string, { mode = "grep", cursor = null, limit = 50 }: SearchOptions = {}) =>
    get<SearchPage>(
      `/api/search?q=${q(query)}&mode=${mode}&limit=${limit}${cursor ? `&cursor=${q(cursor)}` : ""}`,
    ),
  backlinks: (path: string) => get<Backlinks>(`/api/backlinks?path=${q(path)}`),
  async titles(query: string, limit = 40): Promise<SearchHit[]> {
    const data = await get<Titles | SearchHit[]>(`/api/titles?q=${q(query)}&limit=${limit}`);
    return Array.isArray(data) ? data : data.hits;
  },
};

