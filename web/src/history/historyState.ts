// Whether the History panel is open; it always shows the active tab's note. It and the activity
// drawer share the window's right edge, so opening one closes the other.

import { effect, signal } from "@preact/signals";
import { drawerOpen } from "../state";

export const historyOpen = signal(false);

export function toggleHistory(): void {
  historyOpen.value = !historyOpen.value;
}

effect(() => {
  if (historyOpen.value) drawerOpen.value = false;
});
effect(() => {
  if (drawerOpen.value) historyOpen.value = false;
});
