// The open chat: its title and path, the messages (Markdown from the server's renderer),
// the "N new messages ↓" pill, who is waiting, thinking or working, and the message box.
// New messages from others never move the view; the person's own post brings it down.

import { ChatApprovals } from "../approvals/ApprovalsList";
import { useComputed, useSignal } from "@preact/signals";
import { useEffect, useLayoutEffect, useMemo, useRef } from "preact/hooks";
import { files } from "../state";
import { locate } from "../paths";
import type { ChatMessage, Presence } from "./chatApi";
import { ChatIcon } from "./ChatIcons";
import {
  arrivals,
  asName,
  closeConversation,
  conversation,
  fetchNew,
  openAsNote,
  ownPost,
  PAGE,
  readerName,
  type Conversation as Open,
} from "./chatState";
import { Composer } from "./Composer";
import { clickPlaceholder, preparePlaceholders } from "../render/remoteImages";
import { finishedHtml, isForReader, renderBodies, renderedBody } from "./messageHtml";
import { Avatar } from "./Popup";
import { messageTime, shortTime } from "./words";

const GROUP_MS = 5 * 60 * 1000;
const STATUS_RECHECK_MS = 20_000;
const FOLLOW_MS = 1500;
const darkQuery = window.matchMedia("(prefers-color-scheme: dark)");

function ContextChip({ presence }: { presence: Presence | undefined }) {
  const context = presence?.context;
  if (!context) return null;
  return (
    <span
      class={`chat-context ${context.percent >= 80 ? "high" : ""}`}
      title={`Context window used: ${context.text}${context.percent >= 80 ? " (nearly full: time for a fresh start)" : ""}`}
    >
      {context.text.includes("/") ? `${context.percent}%` : context.text}
    </span>
  );
}

function Body({ message, workspace, reader }: { message: ChatMessage; workspace: string; reader: string }) {
  const rendered = renderedBody(message.body);
  const html = useMemo(
    () => (rendered ? finishedHtml(rendered.html, workspace, message.mentions, reader) : null),
    [rendered, workspace, message.mentions, reader],
  );
  const box = useRef<HTMLDivElement>(null);
  // A message's remote images wait for a click, as a note's do ("all" means this message's).
  const remoteNote = `chat:${workspace}:${message.body}`;
  useEffect(() => {
    const element = box.current;
    if (!element || !rendered) return;
    if (rendered.has_math) void import("../render/math").then((module) => module.typeset(element));
    if (rendered.has_mermaid) {
      void import("../render/mermaid").then((module) => module.drawDiagrams(element, darkQuery.matches));
    }
    preparePlaceholders([element], remoteNote);
  }, [html]);
  if (html === null) return <div class="chat-body chat-body-plain">{message.body}</div>;
  return (
    <div
      class="chat-body markdown-body"
      ref={box}
      onClick={(event) => box.current && clickPlaceholder(event, box.current, remoteNote)}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}

function MessageItem({
  message,
  open,
  reader,
  compact,
  presence,
  showChip,
}: {
  message: ChatMessage;
  open: Open;
  reader: string;
  compact: boolean;
  presence: Presence | undefined;
  showChip: boolean;
}) {
  const at = messageTime(message.time);
  const forMe = isForReader(message.mentions, reader) && message.author.toLowerCase() !== reader.toLowerCase();
  const full = at === null ? message.time : `${new Date(at).toLocaleString()} (${message.time})`;
  return (
    <li
      class={`chat-message ${compact ? "compact" : ""} ${forMe ? "for-me" : ""}`}
      data-number={message.number}
      data-author={message.author}
    >
      <div class="chat-gutter">
        {compact ? (
          <span class="chat-gutter-time" title={full}>
            {at === null ? "" : shortTime(at).split(" ").pop()}
          </span>
        ) : (
          <Avatar name={message.author} workspace={open.workspace} avatars={open.avatars} size={32} />
        )}
      </div>
      <div class="chat-message-main">
        {compact ? null : (
          <div class="chat-message-head">
            <span class="chat-author">{message.author}</span>
            {showChip ? <ContextChip presence={presence} /> : null}
            {open.roles[message.author] ? (
              <span class="chat-role-tag" title={open.roles[message.author]}>
                agent
              </span>
            ) : null}
            <time class="chat-time" dateTime={message.time} title={full}>
              {at === null ? message.time : shortTime(at)}
            </time>
            {forMe ? <span class="chat-for-me">to you</span> : null}
          </div>
        )}
        <Body message={message} workspace={open.workspace} reader={reader} />
      </div>
    </li>
  );
}

function isAtBottom(element: HTMLElement): boolean {
  return element.scrollHeight - element.scrollTop - element.clientHeight < 4;
}

function describe(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

function PresenceLine({ open }: { open: Open }) {
  const presence = open.presence;
  if (presence.length === 0) {
    return <div class="chat-presence quiet" aria-live="polite" />;
  }
  const waiting = presence.filter((item) => item.state === "waiting");
  const thinking = presence.filter((item) => item.state === "thinking");
  const working = presence.filter((item) => item.state === "working");
  const person = (item: Presence) => (
    <span class="chat-presence-name" key={item.name} data-presence={item.state} data-name={item.name}>
      <Avatar name={item.name} workspace={open.workspace} avatars={open.avatars} size={16} />
      {item.name}
      <ContextChip presence={item} />
    </span>
  );
  return (
    <div class="chat-presence" aria-live="polite">
      {waiting.length ? (
        <span class="chat-presence-group state-waiting" title={describe(waiting.map((item) => item.name))}>
          <span class="chat-dot" />
          {waiting.map(person)}
          <span class="chat-presence-verb">{waiting.length === 1 ? "is waiting" : "are waiting"}</span>
          {waiting
            .filter((item) => item.status)
            .map((item) => (
              <span key={`${item.name}-status`} class="chat-status">
                {item.name}: {item.status}
              </span>
            ))}
        </span>
      ) : null}
      {thinking.length ? (
        <span class="chat-presence-group state-thinking">
          <span class="chat-dot" />
          {thinking.map(person)}
          <span class="chat-presence-verb">{thinking.length === 1 ? "is thinking…" : "are thinking…"}</span>
        </span>
      ) : null}
      {working.map((item) => (
        <span key={item.name} class="chat-presence-group state-working">
          <span class="chat-dot" />
          {person(item)}
          <span class="chat-presence-verb">is working:</span>
          <span class="chat-status">{item.status}</span>
        </span>
      ))}
    </div>
  );
}

function useStatusRecheck(open: Open | null): void {
  // A /status ends without an event after 2 minutes: look again while one is shown.
  const shown = Boolean(open?.presence.some((item) => item.status));
  useEffect(() => {
    if (!shown) return;
    const timer = window.setInterval(() => void fetchNew(), STATUS_RECHECK_MS);
    return () => window.clearInterval(timer);
  }, [shown, open?.path]);
}

export function ConversationPane({ connect, onBack }: { connect: () => void; onBack: () => void }) {
  const open = conversation.value;
  const limit = useSignal(PAGE);
  const version = useSignal(0);
  const scroller = useRef<HTMLDivElement>(null);
  const column = useRef<HTMLDivElement>(null);
  const keepFromBottom = useRef<number | null>(null);
  // Until this time the view stays at the bottom as content settles (pictures load, Markdown
  // replaces plain text): just after opening the chat or posting, never for others' messages.
  const followUntil = useRef(0);
  const reader = asName.value.trim() || readerName();
  const pending = useComputed(() => {
    const value = arrivals.value;
    return value.path === conversation.value?.path ? value.count : 0;
  });
  useStatusRecheck(open);
  // Others' messages never move the view, even while it is settling at the bottom.
  const seenArrivals = useRef(0);
  if (pending.value > seenArrivals.current) followUntil.current = 0;
  seenArrivals.current = pending.value;

  const messages = open?.messages ?? [];
  const shown = messages.slice(Math.max(0, messages.length - limit.value));

  // Layout effects, declared before `settle` runs: the chat opens at its bottom.
  useLayoutEffect(() => {
    limit.value = PAGE;
    followUntil.current = 0;
  }, [open?.path]);

  useLayoutEffect(() => {
    if (open?.loaded) followUntil.current = Date.now() + FOLLOW_MS;
  }, [open?.path, open?.loaded]);

  useEffect(() => {
    const bodies = shown.map((message) => message.body).filter((body) => !renderedBody(body));
    if (open?.description && !renderedBody(open.description)) bodies.push(open.description);
    if (bodies.length === 0) return;
    renderBodies(bodies)
      .then(() => version.value++)
      .catch(() => undefined); // shown as plain text; the next change asks again
  }, [open?.path, messages.length, limit.value, open?.description]);

  const settle = () => {
    const element = scroller.current;
    if (!element) return;
    if (keepFromBottom.current !== null) {
      element.scrollTop = element.scrollHeight - keepFromBottom.current;
      keepFromBottom.current = null;
    } else if (Date.now() < followUntil.current) {
      element.scrollTop = element.scrollHeight;
    }
    if (isAtBottom(element) && pending.value > 0) arrivals.value = { ...arrivals.value, count: 0 };
  };
  useLayoutEffect(settle);

  useEffect(() => {
    const element = column.current;
    if (!element) return;
    const observer = new ResizeObserver(() => settle());
    observer.observe(element);
    return () => observer.disconnect();
  }, [open?.path]);

  useEffect(() => {
    if (ownPost.value === 0) return;
    followUntil.current = Date.now() + FOLLOW_MS;
    settle();
  }, [ownPost.value]);

  if (!open) return null;
  void version.value;
  const where = locate(open.path, files.value);
  const relative = [...where.folders, where.name].join("/");
  const lastHeaded = new Map<string, number>();
  const compact = shown.map((message, index) => {
    const previous = shown[index - 1];
    const at = messageTime(message.time);
    const before = previous ? messageTime(previous.time) : null;
    const joined =
      previous !== undefined &&
      previous.author === message.author &&
      at !== null &&
      before !== null &&
      at - before < GROUP_MS &&
      isForReader(previous.mentions, reader) === isForReader(message.mentions, reader);
    if (!joined) lastHeaded.set(message.author.toLowerCase(), index);
    return joined;
  });
  const presenceOf = new Map(open.presence.map((item) => [item.name.toLowerCase(), item]));
  const description = open.description ? renderedBody(open.description) : undefined;

  return (
    <section class="chat-conversation" aria-label={open.title || "Chat"}>
      <header class="chat-head">
        <button class="icon-button chat-phone-back" onClick={onBack} aria-label="Back to the chat list" title="Back to the chat list">
          <ChatIcon name="back" />
        </button>
        <div class="chat-head-text">
          <h1 class="chat-title">{open.title || "Chat"}</h1>
          <button class="chat-path" onClick={() => void openAsNote(open.path)} title={`Open ${open.path} as a note in the editor`}>
            {where.workspace ? `${where.workspace} / ` : ""}
            {relative}
          </button>
        </div>
        <button class="button button-quiet chat-connect" onClick={connect} disabled={open.deleted} title="Give an agent the commands to join">
          <ChatIcon name="plug" size={14} />
          <span>Connect an agent</span>
        </button>
      </header>
      <div
        class="chat-scroller"
        ref={scroller}
        onScroll={(event) => {
          if (isAtBottom(event.currentTarget) && pending.value > 0) arrivals.value = { ...arrivals.value, count: 0 };
        }}
        onWheel={(event) => {
          if (event.deltaY < 0) followUntil.current = 0;
        }}
        onTouchMove={() => (followUntil.current = 0)}
        onKeyDown={() => (followUntil.current = 0)}
      >
        <div class="chat-column" ref={column}>
          {open.description ? (
            <div class="chat-description">
              {description ? (
                <div
                  class="markdown-body chat-body"
                  dangerouslySetInnerHTML={{ __html: finishedHtml(description.html, open.workspace, [], reader) }}
                />
              ) : (
                <p>{open.description}</p>
              )}
            </div>
          ) : null}
          {messages.length > shown.length ? (
            <button
              class="button button-quiet chat-earlier"
              onClick={() => {
                const element = scroller.current;
                if (element) keepFromBottom.current = element.scrollHeight - element.scrollTop;
                limit.value += PAGE;
              }}
            >
              Show earlier messages ({(messages.length - shown.length).toLocaleString()})
            </button>
          ) : null}
          {!open.loaded ? (
            <p class="chat-empty">
              <span class="spinner" /> Loading the chat…
            </p>
          ) : messages.length === 0 && !open.deleted ? (
            <p class="chat-empty">No messages yet. Say hello, or connect an agent to talk with.</p>
          ) : null}
          <ol class="chat-messages" aria-label="Messages">
            {shown.map((message, index) => (
              <MessageItem
                key={message.number}
                message={message}
                open={open}
                reader={reader}
                compact={compact[index]!}
                presence={presenceOf.get(message.author.toLowerCase())}
                showChip={lastHeaded.get(message.author.toLowerCase()) === index}
              />
            ))}
          </ol>
        </div>
      </div>
      {pending.value > 0 ? (
        <button
          class="chat-new-pill"
          onClick={() => {
            const element = scroller.current;
            if (element) element.scrollTo({ top: element.scrollHeight, behavior: "smooth" });
            arrivals.value = { ...arrivals.value, count: 0 };
          }}
        >
          {pending.value === 1 ? "1 new message" : `${pending.value} new messages`} <ChatIcon name="down" size={13} />
        </button>
      ) : null}
      {open.deleted ? (
        <div class="chat-deleted" role="status">
          <ChatIcon name="alert" size={15} />
          <span>
            {open.revoked
              ? `You no longer have access to this chat. ${open.revoked}`
              : "This chat was deleted. Nothing more can be posted here."}
          </span>
          <button class="button" onClick={closeConversation}>
            Back to the list
          </button>
        </div>
      ) : (
        <>
          <ChatApprovals path={open.path} />
          <PresenceLine open={open} />
          <Composer open={open} />
        </>
      )}
    </section>
  );
}
