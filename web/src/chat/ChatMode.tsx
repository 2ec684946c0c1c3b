// Full-screen chat mode: the file tree and the document's chrome are hidden; "← Back to …"
// is the one way back to exactly where the person was. On a phone the list and the
// conversation are two screens (← in the chat header goes back to the list).

import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { title } from "../paths";
import { ChatIcon } from "./ChatIcons";
import { ChatList } from "./ChatList";
import { chatApi, type ChatMembers } from "./chatApi";
import {
  closeConversation,
  conversation,
  createChat,
  deleteChat,
  leaveChats,
  listWorkspace,
  refreshChats,
  returnTo,
  workspaces,
} from "./chatState";
import { ConnectAgent, type ConnectTarget } from "./ConnectAgent";
import { ConversationPane } from "./Conversation";
import { Dialog } from "./Popup";
import { chatSlug, cleanFolder } from "./words";

const DEFAULT_FOLDER = "Chats/";

function NewChat({ close }: { close: () => void }) {
  const name = useSignal("");
  const folder = useSignal(DEFAULT_FOLDER);
  const onlyInvited = useSignal(true);
  const people = useSignal<string[]>([]);
  const picked = useSignal<string[]>([]);
  useEffect(() => {
    const workspace = listWorkspace.value;
    if (!workspace) return;
    // Empty on a single-user server (or the server's own token): no privacy controls then.
    chatApi.people(workspace).then(
      (found) => (people.value = found),
      () => (people.value = []),
    );
  }, [listWorkspace.value]);
  const busy = useSignal(false);
  const slug = chatSlug(name.value);
  const where = cleanFolder(folder.value);
  const workspace = workspaces.value.find((item) => item.path === listWorkspace.value);
  const problem = !name.value.trim()
    ? ""
    : !slug
      ? "Use some letters or digits in the name: the file is named after them."
      : where === null
        ? "The folder must be inside the workspace: no .. and no hidden (dot) folders."
        : "";
  const ready = Boolean(name.value.trim() && slug && where !== null);
  const create = async () => {
    if (!ready || busy.value || where === null) return;
    busy.value = true;
    const team = people.value.length > 0;
    const made = await createChat(
      name.value.trim(),
      where,
      slug,
      team && onlyInvited.value ? picked.value : [],
      team && !onlyInvited.value,
    );
    busy.value = false;
    if (made) close();
  };
  return (
    <Dialog title="New chat" label="New chat" close={close}>
      <form
        class="chat-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <label class="chat-field">
          <span>Name</span>
          <input
            type="text"
            value={name.value}
            placeholder="Release coordination"
            maxLength={200}
            onInput={(event) => (name.value = event.currentTarget.value)}
            data-autofocus
          />
        </label>
        <label class="chat-field">
          <span>Folder</span>
          <input type="text" value={folder.value} spellcheck={false} onInput={(event) => (folder.value = event.currentTarget.value)} />
        </label>
        {people.value.length > 0 ? (
          <label class="chat-field chat-field-check">
            <input
              type="checkbox"
              checked={onlyInvited.value}
              onChange={(event) => (onlyInvited.value = event.currentTarget.checked)}
            />
            <span>Only people I invite</span>
          </label>
        ) : null}
        {people.value.length > 0 && onlyInvited.value ? (
          <fieldset class="chat-invite" data-chat-invite>
            <legend>Invite (none ticked: only you)</legend>
            {people.value.map((person) => (
              <label key={person} class="chat-field-check">
                <input
                  type="checkbox"
                  checked={picked.value.includes(person)}
                  onChange={(event) =>
                    (picked.value = event.currentTarget.checked
                      ? [...picked.value, person]
                      : picked.value.filter((item) => item !== person))
                  }
                />
                <span>{person}</span>
              </label>
            ))}
          </fieldset>
        ) : null}
        <p class={`chat-field-note ${problem ? "problem" : ""}`}>
          {problem ||
            (ready ? (
              <>
                Creates <code>{`${where}${slug}.md`}</code> in {workspace?.name ?? "the workspace"}.
              </>
            ) : (
              "The chat is a note: its file name is made from the name, in lower case."
            ))}
        </p>
        <div class="chat-form-actions">
          <button type="button" class="button button-ghost" onClick={close}>
            Cancel
          </button>
          <button type="submit" class="button button-primary" disabled={!ready || busy.value}>
            {busy.value ? <span class="spinner" /> : null} Create chat
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function Members({ target, close }: { target: ConnectTarget; close: () => void }) {
  const state = useSignal<ChatMembers | null>(null);
  const problem = useSignal("");
  const adding = useSignal("");
  const people = useSignal<string[]>([]);
  const busy = useSignal(false);
  const run = async (work: () => Promise<ChatMembers>) => {
    busy.value = true;
    problem.value = "";
    try {
      state.value = await work();
      void refreshChats();
    } catch (error) {
      problem.value = error instanceof Error ? error.message : String(error);
    } finally {
      busy.value = false;
    }
  };
  useEffect(() => {
    void run(() => chatApi.members(target.path));
    chatApi.people(target.workspace).then(
      (found) => (people.value = found),
      () => (people.value = []),
    );
  }, [target.path]);
  const now = state.value;
  return (
    <Dialog title="Members" label="Chat members" close={close}>
      <p class="chat-dialog-lead">
        {now === null
          ? "Loading…"
          : now.private
            ? `${target.title} is private: only these accounts can open it.`
            : `${target.title} is open: everyone who can read the note can read it. Add someone to make it private.`}
      </p>
      {now?.owner ? <p class="chat-field-note">Owner: {now.owner}</p> : null}
      {now?.private ? (
        <ul class="chat-members" data-chat-members>
          {now.members.map((member) => (
            <li key={member}>
              <span>{member}</span>{" "}
              <button
                class="button button-ghost"
                disabled={busy.value || now.members.length < 2}
                title={now.members.length < 2 ? "The last member stays" : `Remove ${member}`}
                onClick={() => void run(() => chatApi.changeMembers(target.path, "remove", member))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <form
        class="chat-form"
        onSubmit={(event) => {
          event.preventDefault();
          const username = adding.value.trim();
          if (!username) return;
          adding.value = "";
          void run(() => chatApi.changeMembers(target.path, "add", username));
        }}
      >
        <label class="chat-field">
          <span>Add</span>
          <input
            type="text"
            value={adding.value}
            placeholder="username"
            list="chat-people"
            spellcheck={false}
            onInput={(event) => (adding.value = event.currentTarget.value)}
            data-autofocus
          />
        </label>
        <datalist id="chat-people">
          {people.value
            .filter((person) => !now?.members.includes(person))
            .map((person) => (
              <option key={person} value={person} />
            ))}
        </datalist>
        {problem.value ? <p class="chat-field-note problem">{problem.value}</p> : null}
        <div class="chat-form-actions">
          {now && !now.private ? (
            <button
              type="button"
              class="button button-ghost"
              disabled={busy.value}
              onClick={() => void run(() => chatApi.changeMembers(target.path, "private"))}
            >
              Make private
            </button>
          ) : null}
          <button type="button" class="button button-ghost" onClick={close}>
            Close
          </button>
          <button type="submit" class="button button-primary" disabled={busy.value || !adding.value.trim()}>
            Add member
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function ConfirmDelete({ target, close }: { target: ConnectTarget; close: () => void }) {
  const busy = useSignal(false);
  return (
    <Dialog title="Delete this chat?" label="Delete chat" close={close}>
      <p class="chat-dialog-lead">
        <strong>{target.title}</strong> and all its messages go, for everyone. Anyone who has it open sees that it was
        deleted, and agents waiting in it are told it is gone. Quire cannot undo this; a git backup of the workspace, if it
        has one, keeps the old copy.
      </p>
      <div class="chat-form-actions">
        <button class="button button-ghost" onClick={close} data-autofocus>
          Cancel
        </button>
        <button
          class="button button-danger"
          disabled={busy.value}
          onClick={async () => {
            busy.value = true;
            await deleteChat(target.path);
            close();
          }}
        >
          Delete chat
        </button>
      </div>
    </Dialog>
  );
}

export function ChatMode() {
  const connecting = useSignal<ConnectTarget | null>(null);
  const deleting = useSignal<ConnectTarget | null>(null);
  const membersOf = useSignal<ConnectTarget | null>(null);
  const creating = useSignal(false);
  const back = returnTo.value;
  const open = conversation.value;

  useEffect(() => {
    const before = document.title;
    document.title = open?.title ? `${open.title} · Chats · Quire` : "Chats · Quire";
    return () => {
      document.title = before;
    };
  }, [open?.title]);

  const backLabel = back ? `Back to ${title(back.fileName || back.path)}` : "Back to the documents";
  return (
    <div class={`chat-mode ${open ? "with-conversation" : ""}`} data-chat-mode>
      <header class="chat-bar">
        <button class="button button-quiet chat-back" onClick={() => void leaveChats()} title={back ? back.path : "Leave chats"}>
          <ChatIcon name="back" size={14} />
          <span>{backLabel}</span>
        </button>
        <span class="chat-bar-title">
          <ChatIcon name="chat" size={15} /> Chats
        </span>
      </header>
      <div class="chat-panes">
        <ChatList
          actions={{
            newChat: () => (creating.value = true),
            connect: (chat) => (connecting.value = { path: chat.path, workspace: chat.workspace, title: chat.title }),
            members: (chat) => (membersOf.value = { path: chat.path, workspace: chat.workspace, title: chat.title }),
            remove: (chat) => (deleting.value = { path: chat.path, workspace: chat.workspace, title: chat.title }),
          }}
        />
        {open ? (
          <ConversationPane
            onBack={closeConversation}
            connect={() =>
              (connecting.value = { path: open.path, workspace: open.workspace, title: open.title || "this chat" })
            }
          />
        ) : (
          <section class="chat-conversation chat-none">
            <div class="chat-none-inner">
              <ChatIcon name="chat" size={28} />
              <h1>Chats</h1>
              <p>
                A chat is a note that people and agents talk in. Pick one on the left, or start one with <strong>+ New</strong>{" "}
                and connect an agent to it.
              </p>
            </div>
          </section>
        )}
      </div>
      {creating.value ? <NewChat close={() => (creating.value = false)} /> : null}
      {connecting.value ? <ConnectAgent target={connecting.value} close={() => (connecting.value = null)} /> : null}
      {membersOf.value ? <Members target={membersOf.value} close={() => (membersOf.value = null)} /> : null}
      {deleting.value ? <ConfirmDelete target={deleting.value} close={() => (deleting.value = null)} /> : null}
    </div>
  );
}

