// The file operations of the HTTP API (`/api/files/…`, `/api/trash…`, `/api/workspaces`) as the
// window calls them. Every shape is the generated schema's: none is written here by hand.

import { request } from "../api";
import type { components } from "../api/schema";

type Schemas = components["schemas"];

export type TreeData = Schemas["TreeData"];
export type TreeChange = Schemas["TreeChange"];
export type Moved = Schemas["Moved"];
export type LinkUpdates = Schemas["LinkUpdates"];
export type Deleted = Schemas["Deleted"];
export type TrashItem = Schemas["TrashItem"];
export type Uploaded = Schemas["Uploaded"];
export type Workspace = Schemas["Workspace"];

const q = encodeURIComponent;
const post = <T>(url: string, body: unknown) => request<T>("POST", url, body);

export const filesApi = {
  workspaces: async (): Promise<Workspace[]> =>
    (await request<Schemas["WorkspaceList"]>("GET", "/api/workspaces")).workspaces,
  createNote: (path: string) => post<Schemas["NoteCreated"]>("/api/files/note", { path }),
  createFolder: (path: string) => post<Schemas["NoteCreated"]>("/api/files/folder", { path }),
  /** The notes moving `path` to `to` would rewrite (nothing is written). */
  links: (path: string, to: string) => post<LinkUpdates>("/api/files/links", { path, to }),
  move: (path: string, to: string, updateLinks: boolean) =>
    post<Moved>("/api/files/move", { path, to, update_links: updateLinks }),
  copy: (path: string, to: string) => post<Schemas["Copied"]>("/api/files/copy", { path, to }),
  delete: (path: string) => post<Deleted>("/api/files/delete", { path }),
  trash: async (): Promise<TrashItem[]> => (await request<Schemas["TrashList"]>("GET", "/api/trash")).items,
  restore: (id: string) => post<Schemas["TrashRestored"]>("/api/trash/restore", { id }),
  emptyTrash: () => post<Schemas["TrashEmptied"]>("/api/trash/empty", {}),
  /** Upload `file` as the new file `path`. */
  uploadTo: (path: string, file: Blob) => post<Uploaded>(`/api/files/upload?path=${q(path)}`, file),
  /** Upload `file` beside the note `note` (the server picks the folder, `assets/`); the answer
   * carries the Markdown link to insert in that note. */
  uploadBeside: (note: string, name: string, file: Blob) =>
    post<Uploaded>(`/api/files/upload?note=${q(note)}&name=${q(name)}`, file),
  downloadUrl: (path: string) => `/api/files/download?path=${q(path)}`,
};
