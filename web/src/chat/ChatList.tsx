// The chat list: the picked workspace's chats, most recently active first, with unread
// counts; Pinned | All; « collapses it to a strip of initials; + New; right-click actions.

import { useSignal } from "@preact/signals";
import { useCallback } from "preact/hooks";
import { colorFor } from "../identity";
import { relativeTime } from "../paths";
import { toast } from "../state";
import type { ChatSummary } from "./chatApi";
import { ChatIcon } from "./ChatIcons";
import {
  chats,
  chatsLoaded,
  conversation,
  listCollapsed,
  listTab,
  listWorkspace,
  openAsNote,
  pinChat,
  selectChat,
  setCollapsed,
  setListTab,
  setListWorkspace,
  workspaces,
} from "./chatState";
import { copyText } from "../clipboard";
import { isMulti } from "../team/teamState";
import { ContextMenu, type MenuItem } from "./Popup";
import { initial } from "./words";

export interface ListActions {
  newChat: () => void;
  connect: (chat: ChatSummary) => void;
  members: (chat: ChatSummary) => void;
  remove: (chat: ChatSummary) => void;
}

function WorkspacePicker() {
  const all = workspaces.value;
  const current = listWorkspace.value;
  if (all.length <= 1) {
    const only = all[0];
    return (
      <span class="chat-list-workspace" title={only?.path}>
        {only?.name ?? "Chats"}
      </span>
    );
  }
  return (
    <select
      class="chat-workspace-select"
      value={current ?? ""}
      aria-label="Workspace whose chats are listed"
      onChange={(event) => setListWorkspace(event.currentTarget.value)}
    >
      {all.map((item) => (
        <option key={item.path} value={item.path} title={item.path}>
          {item.name}
        </option>
      ))}
    </select>
  );
}

function ChatRow({
  chat,
  active,
  menu,
}: {
  chat: ChatSummary;
  active: boolean;
  menu: (chat: ChatSummary, x: number, y: number) => void;
}) {
  return (
    <li>
      <div
        class={`chat-row ${active ? "active" : ""} ${chat.unread > 0 ? "has-unread" : ""}`}
        data-chat-path={chat.path}
        role="button"
        tabIndex={0}
        title={chat.path}
        onClick={() => void selectChat(chat.path)}
        onKeyDown={(event) => {
          if (event.key === "Enter" || event.key === " ") {
            event.preventDefault();
            void selectChat(chat.path);
          } else if (event.key === "ContextMenu" || (event.shiftKey && event.key === "F10")) {
            event.preventDefault();
            const rect = event.currentTarget.getBoundingClientRect();
            menu(chat, rect.left + 24, rect.bottom);
          }
        }}
        onContextMenu={(event) => {
          event.preventDefault();
          menu(chat, event.clientX, event.clientY);
        }}
      >
        <span class="chat-row-mark" style={{ background: colorFor(chat.title.toLowerCase()) }} aria-hidden="true">
          {initial(chat.title)}
        </span>
        <span class="chat-row-main">
          <span class="chat-row-title">{chat.title}</span>
          <span class="chat-row-meta">
            {chat.private ? (
              <span class="chat-private" title="Private: only its members can open it">
                Private ·{" "}
              </span>
            ) : null}
            {chat.messageCount === 0
              ? "No messages yet"
              : `${chat.messageCount.toLocaleString()} message${chat.messageCount === 1 ? "" : "s"} · ${relativeTime(chat.lastActivity)}`}
          </span>
        </span>
        {chat.unread > 0 ? (
          <span class="chat-unread" aria-label={`${chat.unread} unread`} data-unread={chat.unread}>
            {chat.unread > 99 ? "99+" : chat.unread}
          </span>
        ) : null}
        <button
          class={`chat-pin ${chat.pinned ? "pinned" : ""}`}
          aria-label={chat.pinned ? `Unpin ${chat.title}` : `Pin ${chat.title}`}
          aria-pressed={chat.pinned}
          title={chat.pinned ? "Unpin" : "Pin to the Pinned tab"}
          onClick={(event) => {
            event.stopPropagation();
            void pinChat(chat.path, !chat.pinned);
          }}
        >
          <ChatIcon name="pin" size={13} />
        </button>
      </div>
    </li>
  );
}

export function ChatList({ actions }: { actions: ListActions }) {
  const menuAt = useSignal<{ chat: ChatSummary; x: number; y: number } | null>(null);
  const closeMenu = useCallback(() => (menuAt.value = null), []);
  const openMenu = (chat: ChatSummary, x: number, y: number) => (menuAt.value = { chat, x, y });
  const tab = listTab.value;
  const all = chats.value;
  const shown = tab === "pinned" ? all.filter((chat) => chat.pinned) : all;
  const activePath = conversation.value?.path;
  const collapsed = listCollapsed.value && !window.matchMedia("(max-width: 759px)").matches;

  const menuItems = (chat: ChatSummary): MenuItem[] => [
    { label: chat.pinned ? "Unpin" : "Pin", icon: "pin", run: () => void pinChat(chat.path, !chat.pinned) },
    { label: "Open as note", icon: "note", run: () => void openAsNote(chat.path) },
    {
      label: "Copy path",
      icon: "copy",
      run: () =>
        void copyText(chat.path).then((copied) =>
          toast(copied ? "Copied the chat's path for `quire chat`." : "The browser would not copy the path.", copied ? "success" : "error"),
        ),
    },
    // Members exist on a team server only: a single-user server has no accounts to add.
    ...(isMulti.value ? [{ label: "Members…", icon: "note", run: () => actions.members(chat) } satisfies MenuItem] : []),
    { label: "Connect an agent…", icon: "plug", run: () => actions.connect(chat) },
    { label: "Delete chat", icon: "trash", run: () => actions.remove(chat), danger: true },
  ];

  if (collapsed) {
    return (
      <aside class="chat-list collapsed" aria-label="Chats">
        <button class="icon-button" onClick={() => setCollapsed(false)} title="Show the chat list" aria-label="Show the chat list">
          <ChatIcon name="expand" size={14} />
        </button>
        <ul class="chat-strip scroll-quiet">
          {shown.map((chat) => (
            <li key={chat.path}>
              <button
                class={`chat-strip-item ${chat.path === activePath ? "active" : ""}`}
                style={{ background: colorFor(chat.title.toLowerCase()) }}
                title={chat.unread ? `${chat.title} (${chat.unread} unread)` : chat.title}
                aria-label={chat.unread ? `${chat.title}, ${chat.unread} unread` : chat.title}
                data-chat-path={chat.path}
                onClick={() => void selectChat(chat.path)}
                onContextMenu={(event) => {
                  event.preventDefault();
                  openMenu(chat, event.clientX, event.clientY);
                }}
              >
                {initial(chat.title)}
                {chat.unread > 0 ? <span class="chat-strip-dot" aria-hidden="true" /> : null}
              </button>
            </li>
          ))}
        </ul>
        <button class="icon-button" onClick={actions.newChat} title="New chat" aria-label="New chat">
          <ChatIcon name="plus" size={14} />
        </button>
        {menuAt.value ? <ContextMenu {...menuAt.value} items={menuItems(menuAt.value.chat)} close={closeMenu} /> : null}
      </aside>
    );
  }

  return (
    <aside class="chat-list" aria-label="Chats">
      <header class="chat-list-head">
        <WorkspacePicker />
        <button class="button button-quiet chat-new" onClick={actions.newChat} title="Create a chat in this workspace">
          <ChatIcon name="plus" size={13} />
          <span>New</span>
        </button>
        <button class="icon-button chat-collapse" onClick={() => setCollapsed(true)} title="Collapse the list" aria-label="Collapse the chat list">
          <ChatIcon name="collapse" size={14} />
        </button>
      </header>
      <div class="chat-tabs" role="tablist" aria-label="Which chats">
        {(["pinned", "all"] as const).map((name) => (
          <button
            key={name}
            role="tab"
            aria-selected={tab === name}
            class={tab === name ? "on" : ""}
            onClick={() => setListTab(name)}
          >
            {name === "pinned" ? "Pinned" : "All"}
            {name === "pinned" ? <span class="chat-tab-count">{all.filter((chat) => chat.pinned).length || ""}</span> : null}
          </button>
        ))}
      </div>
      <div class="chat-list-body scroll-quiet">
        <ul class="chat-rows">
          {shown.map((chat) => (
            <ChatRow key={chat.path} chat={chat} active={chat.path === activePath} menu={openMenu} />
          ))}
        </ul>
        {!chatsLoaded.value ? (
          <p class="chat-list-empty">
            <span class="spinner" /> Loading chats…
          </p>
        ) : shown.length === 0 ? (
          <p class="chat-list-empty">
            {tab === "pinned" && all.length > 0
              ? "No pinned chats. Hover a chat in All and click its pin to keep it here."
              : (
                  <>
                    No chats in this workspace yet. Start one with + New, or have an agent run <code>quire chat new</code>.
                  </>
                )}
          </p>
        ) : null}
      </div>
      {menuAt.value ? <ContextMenu {...menuAt.value} items={menuItems(menuAt.value.chat)} close={closeMenu} /> : null}
    </aside>
  );
}
