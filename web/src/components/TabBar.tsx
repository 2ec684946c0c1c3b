// The tab strip: one tab per open document, its unsaved dot, and the window's quick buttons.

import { ApprovalsButton } from "../approvals/ApprovalsButton";
import { ChatsButton } from "../chat/ChatsButton";
import { title } from "../paths";
import {
  activate,
  closeTab,
  dirty,
  drawerOpen,
  paletteOpen,
  review,
  settingsOpen,
  sidebarOpen,
  unseenActivity,
  windowState,
} from "../state";
import { Icon } from "./Icons";
import { TeamMenu } from "../team/TeamPage";

export function TabBar() {
  const state = windowState.value;
  return (
    <div class="tabbar">
      <button
        class={`icon-button sidebar-toggle ${sidebarOpen.value ? "pressed" : ""}`}
        onClick={() => (sidebarOpen.value = !sidebarOpen.value)}
        title={sidebarOpen.value ? "Hide sidebar" : "Show sidebar"}
        aria-label="Toggle sidebar"
      >
        <Icon name="sidebar" />
      </button>
      <div class="tabs scroll-quiet" role="tablist" aria-label="Open documents">
        {state.tabs.map((tab) => {
          const active = tab.docId === state.active;
          const unsaved = dirty.value[tab.docId] === true;
          return (
            <div
              key={tab.docId}
              role="tab"
              aria-selected={active}
              class={`tab ${active ? "active" : ""} ${unsaved ? "unsaved" : ""}`}
              title={tab.path}
              data-doc-id={tab.docId}
              onClick={() => void activate(tab.docId)}
              onAuxClick={(event) => {
                if (event.button === 1) void closeTab(tab.docId);
              }}
            >
              <span class="tab-label">{title(tab.fileName || tab.path)}</span>
              <button
                class="tab-close"
                aria-label={unsaved ? `Close ${tab.fileName} (unsaved changes)` : `Close ${tab.fileName}`}
                title={unsaved ? "Unsaved changes" : "Close"}
                onClick={(event) => {
                  event.stopPropagation();
                  void closeTab(tab.docId);
                }}
              >
                <span class="tab-dot" aria-hidden="true" />
                <Icon name="x" size={12} class="tab-x" />
              </button>
            </div>
          );
        })}
      </div>
      <div class="tabbar-actions">
        <TeamMenu />
        <ChatsButton />
        <ApprovalsButton />
        {review.value ? (
          <span class="pill pill-review" title="An agent is waiting for your review">
            <Icon name="review" size={13} /> Review
          </span>
        ) : null}
        <button
          class={`icon-button ${drawerOpen.value ? "pressed" : ""}`}
          onClick={() => {
            drawerOpen.value = !drawerOpen.value;
            unseenActivity.value = 0;
          }}
          title="Agent activity (Ctrl+B)"
          aria-label="Agent activity"
        >
          <Icon name="activity" />
          {unseenActivity.value > 0 ? <span class="badge">{Math.min(unseenActivity.value, 99)}</span> : null}
        </button>
        <button class="icon-button" onClick={() => (paletteOpen.value = true)} title="Commands (Ctrl+K)" aria-label="Commands">
          <Icon name="command" />
        </button>
        <button
          class={`icon-button ${settingsOpen.value ? "pressed" : ""}`}
          onClick={() => (settingsOpen.value = true)}
          title="Settings: connect an agent"
          aria-label="Settings"
        >
          <Icon name="settings" />
        </button>
      </div>
    </div>
  );
}
