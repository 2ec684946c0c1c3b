// The toolbar's Chats button: opens full-screen chat mode; the badge counts unread messages.

import { ChatIcon } from "./ChatIcons";
import { openChats, unreadTotal } from "./chatState";

export function ChatsButton() {
  const unread = unreadTotal.value;
  return (
    <button
      class="button button-quiet chats-button"
      onClick={() => void openChats()}
      title={unread ? `Chats: ${unread} unread` : "Chats"}
      aria-label={unread ? `Chats, ${unread} unread` : "Chats"}
    >
      <ChatIcon name="chat" size={15} />
      <span class="chats-button-label">Chats</span>
      {unread > 0 ? <span class="badge chats-badge">{Math.min(unread, 99)}</span> : null}
    </button>
  );
}
