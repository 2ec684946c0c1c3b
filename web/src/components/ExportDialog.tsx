// The Export dialog: format, theme, paper size, and where the export goes: a file on the
// server's machine (beside the document by default) or a download in this browser.

import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import {
  besideFile,
  downloadExport,
  exportDialog,
  FORMATS,
  PAPERS,
  saveExport,
  THEMES,
  type ExportChoice,
  type ExportFormat,
  type ExportRequest,
  type ExportResult,
  type ExportTheme,
  type Paper,
} from "../exporting";
import { toast } from "../state";
import { Icon } from "./Icons";

const FORMAT_LABELS: Record<ExportFormat, string> = {
  pdf: "PDF",
  html: "HTML (one file)",
  docx: "Word (DOCX)",
  epub: "EPUB",
};

function summary(result: ExportResult): string {
  const pages = result.pages === null ? "" : `, ${result.pages} page${result.pages === 1 ? "" : "s"}`;
  return `Exported ${result.path} (${result.bytes.toLocaleString()} bytes${pages}, ${result.engine})`;
}

function ExportForm({ asked }: { asked: ExportRequest }) {
  const format = useSignal<ExportFormat>(asked.format);
  const theme = useSignal<ExportTheme>("light");
  const paper = useSignal<Paper>("a4");
  const target = useSignal<"file" | "download">("file");
  const output = useSignal(besideFile(asked.path, asked.format));
  const edited = useSignal(false);
  const overwrite = useSignal(false);
  const busy = useSignal(false);
  const problem = useSignal<string | null>(null);
  const notes = useSignal<string[]>([]);
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => dialog.current?.focus(), []);

  const close = () => (exportDialog.value = null);
  const choice = (): ExportChoice => ({ path: asked.path, format: format.value, theme: theme.value, paper: paper.value });
  const pickFormat = (value: ExportFormat) => {
    format.value = value;
    if (!edited.value) output.value = besideFile(asked.path, value);
  };
  const run = async () => {
    busy.value = true;
    problem.value = null;
    notes.value = [];
    try {
      if (target.value === "download") {
        const name = await downloadExport(choice());
        toast(`Downloaded ${name}`, "success");
        close();
        return;
      }
      const result = await saveExport(choice(), output.value.trim(), overwrite.value);
      const warnings = [
        ...result.warnings,
        ...result.diagramErrors.map((item) => `Diagram at line ${item.line}: ${item.message}`),
      ];
      toast(summary(result), "success");
      if (warnings.length) notes.value = warnings;
      else close();
    } catch (error) {
      problem.value = error instanceof Error ? error.message : String(error);
    } finally {
      busy.value = false;
    }
  };

  return (
    <div class="settings-scrim" onMouseDown={(event) => event.target === event.currentTarget && close()}>
      <div
        class="settings export-dialog"
        role="dialog"
        aria-modal="true"
        aria-label="Export"
        tabIndex={-1}
        ref={dialog}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            event.stopPropagation();
            close();
          }
        }}
      >
        <header class="settings-head">
          <Icon name="export" />
          <h1>Export {asked.path.split("/").pop()}</h1>
          <span class="export-spacer" />
          <button class="icon-button" onClick={close} title="Close (Esc)" aria-label="Close export">
            <Icon name="x" />
          </button>
        </header>
        <form
          class="settings-body export-form"
          onSubmit={(event) => {
            event.preventDefault();
            void run();
          }}
        >
          <label class="export-field">
            <span>Format</span>
            <select
              name="format"
              value={format.value}
              onChange={(event) => pickFormat(event.currentTarget.value as ExportFormat)}
            >
              {FORMATS.map((item) => (
                <option key={item} value={item}>
                  {FORMAT_LABELS[item]}
                </option>
              ))}
            </select>
          </label>
          <label class="export-field">
            <span>Theme</span>
            <select name="theme" value={theme.value} onChange={(event) => (theme.value = event.currentTarget.value as ExportTheme)}>
              {THEMES.map((item) => (
                <option key={item} value={item}>
                  {item[0]?.toUpperCase() + item.slice(1)}
                </option>
              ))}
            </select>
          </label>
          {format.value === "pdf" ? (
            <label class="export-field">
              <span>Paper</span>
              <select name="paper" value={paper.value} onChange={(event) => (paper.value = event.currentTarget.value as Paper)}>
                {PAPERS.map((item) => (
                  <option key={item} value={item}>
                    {item === "a4" || item === "a5" ? item.toUpperCase() : item[0]?.toUpperCase() + item.slice(1)}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <fieldset class="export-target">
            <legend>Where</legend>
            <label class="settings-check">
              <input
                type="radio"
                name="target"
                value="file"
                checked={target.value === "file"}
                onChange={() => (target.value = "file")}
              />
              <span>Save on the server's machine</span>
            </label>
            {target.value === "file" ? (
              <div class="export-save">
                <input
                  type="text"
                  name="output"
                  aria-label="Save as (a path on the server's machine)"
                  value={output.value}
                  spellcheck={false}
                  onInput={(event) => {
                    output.value = event.currentTarget.value;
                    edited.value = true;
                  }}
                />
                <label class="settings-check">
                  <input
                    type="checkbox"
                    name="overwrite"
                    checked={overwrite.value}
                    onChange={(event) => (overwrite.value = event.currentTarget.checked)}
                  />
                  <span>Replace the file if it exists</span>
                </label>
              </div>
            ) : null}
            <label class="settings-check">
              <input
                type="radio"
                name="target"
                value="download"
                checked={target.value === "download"}
                onChange={() => (target.value = "download")}
              />
              <span>Download in this browser</span>
            </label>
          </fieldset>
          {problem.value ? (
            <div class="settings-problem" role="alert">
              <p>{problem.value}</p>
            </div>
          ) : null}
          {notes.value.length ? (
            <ul class="export-notes" aria-label="Export warnings">
              {notes.value.map((note, index) => (
                <li key={index}>{note}</li>
              ))}
            </ul>
          ) : null}
          <div class="export-actions">
            <button type="button" class="button" onClick={close}>
              {notes.value.length ? "Close" : "Cancel"}
            </button>
            <button type="submit" class="button button-primary" disabled={busy.value} data-export-run>
              {busy.value ? <span class="spinner" /> : null}
              <span>{target.value === "download" ? "Download" : "Export"}</span>
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}

export function ExportDialog() {
  const asked = exportDialog.value;
  if (!asked) return null;
  return <ExportForm key={`${asked.path}:${asked.format}`} asked={asked} />;
}
