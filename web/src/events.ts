// The window-event channel: `/ws/events` delivers JSON `{kind, data}` for this user.
// It reconnects on its own; on every (re)connect the app reloads its state, since the server
// keeps no history of events a closed socket missed.

import { notifyUnauthorized } from "./api";

/** The close code the server uses for a socket without a valid session. */
const UNAUTHORIZED = 4401;

export interface WindowEvent {
  kind: string;
  data: Record<string, unknown>;
}

export type ConnectionState = "connecting" | "online" | "offline";

export function wsUrl(path: string): string {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${path}`;
}

export class EventChannel {
  private socket: WebSocket | null = null;
  private retry = 0;
  private timer: number | undefined;
  private stopped = false;

  constructor(
    private readonly onEvent: (event: WindowEvent) => void,
    private readonly onState: (state: ConnectionState) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.timer);
    this.socket?.close();
  }

  private connect(): void {
    this.onState("connecting");
    const socket = new WebSocket(wsUrl("/ws/events"));
    this.socket = socket;
    socket.onopen = () => {
      this.retry = 0;
      this.onState("online");
    };
    socket.onmessage = (message) => {
      if (typeof message.data !== "string") return;
      try {
        const parsed = JSON.parse(message.data) as WindowEvent;
        if (parsed && typeof parsed.kind === "string") this.onEvent({ kind: parsed.kind, data: parsed.data ?? {} });
      } catch {
        // A frame that is not JSON is not an event; nothing to do with it.
      }
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.onState("offline");
      if (event.code === UNAUTHORIZED) notifyUnauthorized();
      if (this.stopped) return;
      const delay = Math.min(5000, 250 * 2 ** this.retry++);
      this.timer = window.setTimeout(() => this.connect(), delay);
    };
  }
}
