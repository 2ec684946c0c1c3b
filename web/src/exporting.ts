// Exports from the window: which dialog is open, and the two ways to export (save a file on
// the server's machine, or download the bytes in the browser).

import { signal } from "@preact/signals";
import { ApiError, request } from "./api";

export type ExportFormat = "pdf" | "html" | "docx" | "epub";
export type ExportTheme = "light" | "dark" | "print";
export type Paper = "a4" | "letter" | "legal" | "a5";

export const FORMATS: ExportFormat[] = ["pdf", "html", "docx", "epub"];
export const THEMES: ExportTheme[] = ["light", "dark", "print"];
export const PAPERS: Paper[] = ["a4", "letter", "legal", "a5"];

export interface ExportRequest {
  path: string;
  format: ExportFormat;
}

export interface ExportResult {
  path: string;
  format: ExportFormat;
  bytes: number;
  pages: number | null;
  engine: string;
  warnings: string[];
  diagramErrors: Array<{ line: number; message: string }>;
}

export interface ExportChoice {
  path: string;
  format: ExportFormat;
  theme: ExportTheme;
  paper: Paper;
}

/** The export dialog on screen, or null. */
export const exportDialog = signal<ExportRequest | null>(null);

export function isFormat(value: unknown): value is ExportFormat {
  return typeof value === "string" && (FORMATS as string[]).includes(value);
}

/** The file beside `path` with the format's extension: what an export writes by default. */
export function besideFile(path: string, format: ExportFormat): string {
  const slash = path.lastIndexOf("/");
  const dot = path.lastIndexOf(".");
  const stem = dot > slash ? path.slice(0, dot) : path;
  return `${stem}.${format}`;
}

export function openExportDialog(path: string, format: unknown = "pdf"): void {
  exportDialog.value = { path, format: isFormat(format) ? format : "pdf" };
}

/** Write the export on the server's machine, at `outputPath`. */
export function saveExport(choice: ExportChoice, outputPath: string, overwrite: boolean): Promise<ExportResult> {
  return request<ExportResult>("POST", "/api/export", { ...choice, output_path: outputPath, overwrite });
}

function downloadUrl(choice: ExportChoice): string {
  const q = encodeURIComponent;
  return `/api/export/download?path=${q(choice.path)}&format=${choice.format}&theme=${choice.theme}&paper=${choice.paper}`;
}

function filenameOf(header: string | null, fallback: string): string {
  const match = /filename\*=UTF-8''([^;]+)/i.exec(header ?? "");
  return match?.[1] ? decodeURIComponent(match[1]) : fallback;
}

/** Export into the browser: fetch the bytes, then hand them to the browser's download. */
export async function downloadExport(choice: ExportChoice): Promise<string> {
  let response: Response;
  try {
    response = await fetch(downloadUrl(choice), { credentials: "same-origin" });
  } catch {
    throw new ApiError(0, "Offline", "Quire's server cannot be reached. Is `quire serve` still running?");
  }
  if (!response.ok) {
    const data = (await response.json().catch(() => null)) as { error?: { type?: string; message?: string } } | null;
    throw new ApiError(
      response.status,
      data?.error?.type ?? `HTTP${response.status}`,
      data?.error?.message ?? `The server answered ${response.status} ${response.statusText}.`,
    );
  }
  const name = filenameOf(response.headers.get("Content-Disposition"), besideFile(choice.path, choice.format).split("/").pop() ?? "export");
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}
