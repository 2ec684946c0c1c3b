// The history routes of the HTTP API (`/api/history…`) as the window calls them. Every shape is
// the generated schema's: none is written here by hand.

import { request } from "../api";
import type { components } from "../api/schema";

type Schemas = components["schemas"];

export type HistoryEntry = Schemas["HistoryEntry"];
export type HistoryPage = Schemas["HistoryPage"];
export type VersionDiff = Schemas["VersionDiff"];
export type Version = Schemas["Version"];
export type Blame = Schemas["Blame"];
export type BlameLine = Schemas["BlameLine"];
export type Restored = Schemas["Restored"];

const q = encodeURIComponent;

export const historyApi = {
  /** The note's commits, newest first; `cursor` (a nextCursor) asks for the next page. */
  note: (path: string, cursor?: string | null) =>
    request<HistoryPage>("GET", `/api/history?path=${q(path)}&limit=20${cursor ? `&cursor=${q(cursor)}` : ""}`),
  version: (path: string, rev: string) =>
    request<Version>("GET", `/api/history/version?path=${q(path)}&rev=${q(rev)}`),
  diff: (path: string, from: string, to: string) =>
    request<VersionDiff>("GET", `/api/history/diff?path=${q(path)}&from=${q(from)}&to=${q(to)}`),
  blame: (path: string, rev = "HEAD") =>
    request<Blame>("GET", `/api/history/blame?path=${q(path)}&rev=${q(rev)}`),
  /** Recent commits across the workspaces: `author` a person's (and their agents'), `agent` one
   * agent's. */
  timeline: (filter: { author?: string; agent?: string }, cursor: string | null) => {
    const params = new URLSearchParams({ limit: "30", ...filter });
    if (cursor) params.set("cursor", cursor);
    return request<HistoryPage>("GET", `/api/history/timeline?${params.toString()}`);
  },
  restore: (path: string, rev: string) => request<Restored>("POST", "/api/history/restore", { path, rev }),
};
