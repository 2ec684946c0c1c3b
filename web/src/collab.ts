// One live document in the browser: a Y.Doc kept in sync with the server's copy over
// `/ws/documents/{docId}` (y-websocket framing: 0 = sync, 1 = awareness), reconnecting on
// its own. The text lives in the Y.Text named "content", as on the server.

import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import { signal, type Signal } from "@preact/signals";
import { wsUrl } from "./events";
import { identity } from "./identity";

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
const MESSAGE_QUERY_AWARENESS = 3;

export type SyncState = "connecting" | "synced" | "offline";

export class LiveDocument {
  readonly doc = new Y.Doc();
  readonly text: Y.Text = this.doc.getText("content");
  readonly awareness = new awarenessProtocol.Awareness(this.doc);
  readonly state: Signal<SyncState> = signal("connecting");
  /** Bumped on every change to the text, from anyone: views re-read the text on it. */
  readonly version = signal(0);
  /** Bumped when a change made elsewhere (another editor, an agent, the disk) arrives. */
  readonly remote = signal(0);
  private socket: WebSocket | null = null;
  private retry = 0;
  private timer: number | undefined;
  private destroyed = false;
  private syncedOnce: Array<() => void> = [];

  constructor(readonly docId: string) {
    this.awareness.setLocalStateField("user", identity());
    this.doc.on("update", this.onDocUpdate);
    this.awareness.on("update", this.onAwarenessUpdate);
    this.text.observe((event) => {
      this.version.value++;
      if (event.transaction.origin === this && this.state.peek() === "synced") this.remote.value++;
    });
    this.connect();
  }

  /** Resolves once the first full sync with the server is done. */
  whenSynced(): Promise<void> {
    if (this.state.value === "synced") return Promise.resolve();
    return new Promise((resolve) => this.syncedOnce.push(resolve));
  }

  destroy(): void {
    this.destroyed = true;
    window.clearTimeout(this.timer);
    awarenessProtocol.removeAwarenessStates(this.awareness, [this.doc.clientID], "local");
    this.doc.off("update", this.onDocUpdate);
    this.awareness.off("update", this.onAwarenessUpdate);
    this.socket?.close();
    this.awareness.destroy();
    this.doc.destroy();
  }

  private connect(): void {
    if (this.destroyed) return;
    this.state.value = "connecting";
    const socket = new WebSocket(wsUrl(`/ws/documents/${encodeURIComponent(this.docId)}`));
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      this.retry = 0;
      const step1 = encoding.createEncoder();
      encoding.writeVarUint(step1, MESSAGE_SYNC);
      syncProtocol.writeSyncStep1(step1, this.doc);
      socket.send(encoding.toUint8Array(step1));
      if (this.awareness.getLocalState() !== null) {
        this.send(this.awarenessMessage([this.doc.clientID]));
      }
    };
    socket.onmessage = (message) => {
      if (!(message.data instanceof ArrayBuffer)) return;
      this.receive(new Uint8Array(message.data));
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      const others = [...this.awareness.getStates().keys()].filter((id) => id !== this.doc.clientID);
      awarenessProtocol.removeAwarenessStates(this.awareness, others, this);
      if (this.destroyed) return;
      this.state.value = "offline";
      const delay = Math.min(5000, 250 * 2 ** this.retry++);
      this.timer = window.setTimeout(() => this.connect(), delay);
    };
  }

  private receive(data: Uint8Array): void {
    const decoder = decoding.createDecoder(data);
    const reply = encoding.createEncoder();
    const kind = decoding.readVarUint(decoder);
    if (kind === MESSAGE_SYNC) {
      encoding.writeVarUint(reply, MESSAGE_SYNC);
      const step = syncProtocol.readSyncMessage(decoder, reply, this.doc, this);
      if (step === syncProtocol.messageYjsSyncStep2 && this.state.value !== "synced") {
        this.state.value = "synced";
        this.syncedOnce.splice(0).forEach((resolve) => resolve());
      }
      if (encoding.length(reply) > 1) this.send(encoding.toUint8Array(reply));
    } else if (kind === MESSAGE_AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(decoder), this);
    } else if (kind === MESSAGE_QUERY_AWARENESS) {
      this.send(this.awarenessMessage([...this.awareness.getStates().keys()]));
    }
  }

  private send(message: Uint8Array): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(message);
  }

  private awarenessMessage(clients: number[]): Uint8Array {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
    encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(this.awareness, clients));
    return encoding.toUint8Array(encoder);
  }

  private onDocUpdate = (update: Uint8Array, origin: unknown): void => {
    if (origin === this) return;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    syncProtocol.writeUpdate(encoder, update);
    this.send(encoding.toUint8Array(encoder));
  };

  private onAwarenessUpdate = (
    changes: { added: number[]; updated: number[]; removed: number[] },
    origin: unknown,
  ): void => {
    if (origin === this) return;
    const changed = [...changes.added, ...changes.updated, ...changes.removed];
    this.send(this.awarenessMessage(changed));
  };
}

/** The open live documents, one per docId, shared by every view of the document. */
const live = new Map<string, LiveDocument>();

export function liveDocument(docId: string): LiveDocument {
  let document = live.get(docId);
  if (!document) {
    document = new LiveDocument(docId);
    live.set(docId, document);
  }
  return document;
}

/** Drop the live documents of tabs that are no longer open. */
export function keepLive(docIds: Iterable<string>): void {
  const keep = new Set(docIds);
  for (const [docId, document] of live) {
    if (!keep.has(docId)) {
      document.destroy();
      live.delete(docId);
    }
  }
}
