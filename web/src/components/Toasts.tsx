// Short notes at the bottom of the window: saved, refused, could not reach the server; some
// carry a button (Undo after a delete or a move).

import { dismissToast, toasts } from "../state";
import { Icon } from "./Icons";

export function Toasts() {
  return (
    <div class="toasts" aria-live="polite">
      {toasts.value.map((item) => (
        <div key={item.id} class={`toast toast-${item.tone}`} role={item.tone === "error" ? "alert" : "status"}>
          <Icon name={item.tone === "success" ? "check" : item.tone === "error" ? "alert" : "spark"} size={14} />
          <span>{item.text}</span>
          {item.action ? (
            <button
              class="toast-action"
              onClick={() => {
                dismissToast(item.id);
                item.action?.run();
              }}
            >
              {item.action.label}
            </button>
          ) : null}
        </div>
      ))}
    </div>
  );
}
