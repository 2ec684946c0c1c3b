// Paths as the person reads them: relative to a workspace when the file lies in one.

import type { FileEntry } from "./api";

export const MARKDOWN = [".md", ".markdown", ".mdown", ".mkd", ".mdx"];

export function isMarkdown(path: string): boolean {
  const lower = path.toLowerCase();
  return MARKDOWN.some((ext) => lower.endsWith(ext));
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

export function dirName(path: string): string {
  const index = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return index <= 0 ? path.slice(0, index + 1) : path.slice(0, index);
}

/** The title shown for a file: its name without the Markdown extension. */
export function title(path: string): string {
  const name = baseName(path);
  const ext = MARKDOWN.find((suffix) => name.toLowerCase().endsWith(suffix));
  return ext ? name.slice(0, -ext.length) : name;
}

export interface Located {
  workspace: string | null;
  folders: string[];
  name: string;
}

/** Where a path sits: its workspace's name and folders when one of `files` holds it. */
export function locate(path: string, files: FileEntry[]): Located {
  const entry = files.find((file) => file.path === path);
  if (entry) {
    const parts = entry.relPath.split("/");
    return { workspace: baseName(entry.workspace), folders: parts.slice(0, -1), name: parts[parts.length - 1]! };
  }
  const roots = [...new Set(files.map((file) => file.workspace))].sort((a, b) => b.length - a.length);
  const root = roots.find((candidate) => path.startsWith(candidate.endsWith("/") ? candidate : `${candidate}/`));
  if (root) {
    const parts = path.slice(root.length).replace(/^\/+/, "").split("/");
    return { workspace: baseName(root), folders: parts.slice(0, -1), name: parts[parts.length - 1]! };
  }
  const parts = path.split("/").filter(Boolean);
  return { workspace: null, folders: parts.slice(-3, -1), name: baseName(path) };
}

/** Resolve a link written in a document against that document's folder. */
export function resolveLink(documentPath: string, href: string): { path: string; fragment: string } | null {
  try {
    const folder = dirName(documentPath).split("/").map(encodeURIComponent).join("/");
    const base = new URL(`file://${folder}/`);
    const url = new URL(href, base);
    if (url.protocol !== "file:") return null;
    return { path: decodeURIComponent(url.pathname), fragment: decodeURIComponent(url.hash.slice(1)) };
  } catch {
    return null;
  }
}

export function relativeTime(at: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 10) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return new Date(at).toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

/** The relative path from the folder `from` to `to` (both absolute, `/`-separated). */
export function relativePath(from: string, to: string): string {
  const base = from.split("/").filter(Boolean);
  const target = to.split("/").filter(Boolean);
  let same = 0;
  while (same < base.length && same < target.length - 1 && base[same] === target[same]) same++;
  return [...base.slice(same).map(() => ".."), ...target.slice(same)].join("/");
}
