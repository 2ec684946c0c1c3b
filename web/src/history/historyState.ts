// Whether the History panel is open; it always shows the active tab's note.

import { signal } from "@preact/signals";

export const historyOpen = signal(false);

export function toggleHistory(): void {
  historyOpen.value = !historyOpen.value;
}
