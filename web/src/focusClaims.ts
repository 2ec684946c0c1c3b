// Focus the window placed on purpose (a revealed tree row), and when the active document last
// changed: a slow editor must not take the focus from such a place once it is ready, even when
// its code loaded so late that the row was already focused when it started (see EditorPane's
// mayTakeFocus). Kept in the main bundle, so a claim made before the editor's code loaded
// counts too.
import { effect } from "@preact/signals";

import { windowState } from "./state";

let claimedAt = -1;
let openedAt = 0;
let openedDoc: string | null = null;

// Once every module has loaded (the state module may still be loading when this one runs).
queueMicrotask(() =>
  effect(() => {
    const active = windowState.value.active ?? null;
    if (active === openedDoc) return;
    openedDoc = active;
    openedAt = performance.now();
  }),
);

/** The focus was just placed on purpose (a revealed row): no editor should take it. */
export function claimFocus(): void {
  claimedAt = performance.now();
}

/** Whether the focus was placed on purpose since `docId` became the active document. */
export function focusClaimedSinceOpened(docId: string): boolean {
  return openedDoc === docId && claimedAt >= openedAt;
}
