// The HTTP API of `quire serve`, as the browser calls it: same origin, session cookie, JSON.

export type View = "read" | "edit" | "source";
export type Decision = "approved" | "changes_requested" | "dismissed";

export interface FileEntry {
  path: string;
  workspace: string;
  relPath: string;
  mtimeMs: number;
  size: number;
}

export interface TabInfo {
  docId: string;
  path: string;
  fileName: string;
  view: View;
  openedAt: number;
}

export interface WindowInfo {
  tabs: TabInfo[];
  active: string | null;
  view: View | null;
  present: boolean;
}

export interface RecentDocument {
  path: string;
  fileName: string;
  openedAt: number;
}

export interface Rendered {
  html: string;
  has_math: boolean;
  has_mermaid: boolean;
  dirty?: boolean;
  partial?: boolean;
}

export interface Review {
  reviewId: string;
  path: string | null;
  content: string | null;
  requestedBy: string;
  createdAt: number;
  deadline: number;
  status: string;
  verdict: string | null;
  comments: string | null;
  late: boolean;
  supersededBy: string | null;
}

export type SearchMode = "grep" | "words";

/** One file that matches a search (or a title that fits quick open's query). */
export interface SearchHit {
  path: string;
  workspace: string;
  relPath: string;
  title: string;
  /** 1-based line of the first match. */
  line: number;
  /** Plain text around the match; each match wrapped in U+0002 … U+0003 (see snippets.ts). */
  snippet: string;
  /** How many times the query occurs in the file (null when not counted). */
  matches?: number | null;
}

export interface Unreadable {
  path: string;
  reason: string;
}

/** One page of a search: one hit per file; `nextCursor` asks for the next page. */
export interface SearchPage {
  query: string;
  mode: SearchMode;
  hits: SearchHit[];
  truncated: boolean;
  nextCursor?: string | null;
  /** What the answer may lack and why (the index still being built, …). */
  note?: string | null;
  /** How many files the index holds. */
  indexed: number;
  unreadable: Unreadable[];
}

export interface Backlink {
  path: string;
  title: string;
  line: number;
}

export interface Backlinks {
  path: string;
  links: Backlink[];
}

export interface Titles {
  query: string;
  hits: SearchHit[];
}

export interface SearchOptions {
  mode?: SearchMode;
  cursor?: string | null;
  limit?: number;
}

export type AgentState = "connected" | "other" | "stale" | "absent";

export interface AgentInfo {
  id: string;
  name: string;
  /** Whether the agent is installed on the server's machine. */
  detected: boolean;
  state: AgentState;
  /** What the agent runs now, and what Connect would do about it. */
  detail: string;
  /** Exactly the command (or JSON) that registers Quire with it by hand. */
  command: string;
}

export interface HookInfo {
  installed: boolean;
  chatInstalled: boolean;
  command: string;
  detail?: string;
}

export interface AgentsOverview {
  agents: AgentInfo[];
  hook: HookInfo;
}

export interface Outcome {
  ok: boolean;
  message: string;
}

export interface Opened {
  opened: boolean;
  path: string;
  docId: string;
  view: View;
}

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
  const init: RequestInit = {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
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

interface FilesPage {
  files: FileEntry[];
  nextCursor: string | null;
  total: number;
}

function asReview(raw: Record<string, unknown> | null): Review | null {
  if (!raw) return null;
  const pick = (...keys: string[]) => {
    for (const key of keys) if (raw[key] !== undefined) return raw[key];
    return undefined;
  };
  return {
    reviewId: String(pick("reviewId", "id") ?? ""),
    path: (pick("path") as string | null) ?? null,
    content: (pick("content") as string | null) ?? null,
    requestedBy: String(pick("requestedBy", "requested_by") ?? ""),
    createdAt: Number(pick("createdAt", "createdAtMs", "created_at_ms") ?? Date.now()),
    deadline: Number(pick("deadline", "deadlineMs", "deadline_ms") ?? Date.now()),
    status: String(pick("status") ?? "pending"),
    verdict: (pick("verdict") as string | null) ?? null,
    comments: (pick("comments") as string | null) ?? null,
    late: Boolean(pick("late")),
    supersededBy: (pick("supersededBy", "superseded_by") as string | null) ?? null,
  };
}

export const api = {
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
  documentState: (docId: string) =>
    get<{ docId: string; path: string; dirty: boolean; conflict: { mine: string; disk: string } | null }>(
      `/api/documents/state?docId=${q(docId)}`,
    ),
  toggleTask: (docId: string, line: number, checked: boolean) =>
    post<{ ok: boolean }>("/api/documents/toggle-task", { docId, line, checked }),
  resolveConflict: (docId: string, keep: "mine" | "disk") =>
    post<{ ok: boolean }>("/api/documents/resolve-conflict", { docId, keep }),
  async activeReview(): Promise<Review | null> {
    const data = await get<Record<string, unknown> | null>("/api/reviews/active");
    const inner = data && "review" in data ? (data.review as Record<string, unknown> | null) : data;
    return asReview(inner);
  },
  async review(id: string): Promise<Review | null> {
    return asReview(await get<Record<string, unknown>>(`/api/reviews/${q(id)}`));
  },
  async decide(id: string, verdict: Decision, comments: string): Promise<Review | null> {
    const body = comments.trim() ? { verdict, comments } : { verdict };
    return asReview(await post<Record<string, unknown>>(`/api/reviews/${q(id)}/decision`, body));
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

export { asReview };
