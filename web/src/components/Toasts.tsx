// Short notes at the bottom of the window: saved, refused, could not reach the server.

import { toasts } from "../state";
import { Icon } from "./Icons";

export function Toasts() {
  return (
    <div class="toasts" aria-live="polite">
      {toasts.value.map((item) => (
        <div key={item.id} class={`toast toast-${item.tone}`} role={item.tone === "error" ? "alert" : "status"}>
          <Icon name={item.tone === "success" ? "check" : item.tone === "error" ? "alert" : "spark"} size={14} />
          <span>{item.text}</span>
        </div>
      ))}
    </div>
  );
}
