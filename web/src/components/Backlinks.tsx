// The Backlinks section under a document in Read view: the notes that link to it (wikilinks and
// Markdown links, from the server's index), each with its title, folder and line; a click opens
// the linking note at that line. Asked again whenever the file list changes.

import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api, type Backlinks as BacklinksAnswer } from "../api";
import { baseName, dirName, title } from "../paths";
import { files, openPath } from "../state";
import { Icon } from "./Icons";

export function Backlinks({ path }: { path: string }) {
  const answer = useSignal<BacklinksAnswer | null>(null);
  const problem = useSignal("");
  const known = files.value;

  useEffect(() => {
    let current = true;
    api
      .backlinks(path)
      .then((found) => {
        if (!current) return;
        answer.value = found;
        problem.value = "";
      })
      .catch((error: unknown) => {
        if (current) problem.value = error instanceof Error ? error.message : String(error);
      });
    return () => {
      current = false;
    };
  }, [path, known]);

  const links = answer.value?.path === path ? answer.value.links : null;
  return (
    <section class="backlinks" aria-label="Backlinks">
      <h2>
        Backlinks{links && links.length ? ` · ${links.length.toLocaleString()}` : ""}
      </h2>
      {problem.value ? <p class="backlinks-empty">{problem.value}</p> : null}
      {links && links.length === 0 ? <p class="backlinks-empty">No note links here yet.</p> : null}
      {links && links.length ? (
        <ul>
          {links.map((link) => {
            const folder = baseName(dirName(link.path));
            return (
              <li key={`${link.path}:${link.line}`}>
                <button
                  class="backlink"
                  onClick={() => void openPath(link.path, undefined, link.line)}
                  title={`Open ${link.path} at line ${link.line}`}
                >
                  <Icon name="file" size={13} />
                  <span class="backlink-title">{link.title || title(link.path)}</span>
                  <span class="backlink-where">
                    {folder ? `${folder} · ` : ""}line {link.line}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}
