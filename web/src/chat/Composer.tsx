// The message box: Enter sends, Shift+Enter adds a line; the `as` box sets the name; `@`
// offers the names in the chat (Tab completes); the picture button posts a reaction.

import { useSignal } from "@preact/signals";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { chatApi, gifUrl, type GifInfo } from "./chatApi";
import { ChatIcon } from "./ChatIcons";
import { asName, readerName, send, setAsName, type Conversation } from "./chatState";

const MENTION_BEFORE_CARET = /(?:^|[^\p{L}\p{N}_.+\-/@])@([\p{L}\p{N}_.-]*)$/u;
const MENTIONABLE = /^[\p{L}\p{N}_][\p{L}\p{N}_.-]*$/u;
const MAX_HEIGHT = 200;

interface Completion {
  start: number;
  end: number;
  names: string[];
}

/** The names `@` offers: everyone who posted, is present or has a role, then all/everyone. */
export function mentionNames(open: Conversation, me: string): string[] {
  const seen = new Map<string, string>();
  for (const name of [...open.participants, ...open.presence.map((item) => item.name), ...Object.keys(open.roles)]) {
    if (!MENTIONABLE.test(name) || name.toLowerCase() === me.toLowerCase()) continue;
    if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  }
  return [...seen.values(), "all", "everyone"];
}

function completionAt(text: string, caret: number, names: string[]): Completion | null {
  const match = MENTION_BEFORE_CARET.exec(text.slice(0, caret));
  if (!match) return null;
  const typed = match[1]!.toLowerCase();
  const found = names.filter((name) => name.toLowerCase().startsWith(typed) && name.toLowerCase() !== typed);
  if (found.length === 0) return null;
  return { start: caret - typed.length, end: caret, names: found.slice(0, 8) };
}

function GifPicker({ workspace, pick, close }: { workspace: string; pick: (name: string) => void; close: () => void }) {
  const gifs = useSignal<GifInfo[] | null>(null);
  const problem = useSignal("");
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    chatApi
      .gifs(workspace)
      .then((found) => (gifs.value = found.gifs))
      .catch((error: unknown) => (problem.value = error instanceof Error ? error.message : String(error)));
    const away = (event: Event) => {
      const target = event.target as Element;
      if (!box.current?.contains(target) && !target.closest?.(".chat-gif-button")) close();
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      close();
    };
    window.addEventListener("mousedown", away, true);
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("mousedown", away, true);
      window.removeEventListener("keydown", onKey);
    };
  }, [workspace]);
  return (
    <div class="chat-gif-picker" role="dialog" aria-label="Reactions" ref={box}>
      <header>
        <span>Reactions</span>
        <span class="chat-gif-hint">Click one to post it</span>
      </header>
      {problem.value ? <p class="chat-gif-problem">{problem.value}</p> : null}
      {gifs.value === null && !problem.value ? (
        <p class="chat-gif-problem">
          <span class="spinner" /> Loading…
        </p>
      ) : null}
      <div class="chat-gif-grid scroll-quiet">
        {(gifs.value ?? []).map((gif) => (
          <button key={gif.name} class="chat-gif-choice" title={`Post ${gif.name}`} onClick={() => pick(gif.name)} data-gif-name={gif.name}>
            <img src={gifUrl(workspace, gif.name)} alt="" loading="lazy" />
            <span>{gif.name}</span>
          </button>
        ))}
      </div>
    </div>
  );
}

export function Composer({ open }: { open: Conversation }) {
  const text = useSignal("");
  const sending = useSignal(false);
  const completion = useSignal<Completion | null>(null);
  const selected = useSignal(0);
  const pickerOpen = useSignal(false);
  const area = useRef<HTMLTextAreaElement>(null);

  // Before paint, so a key typed into the box of the newly opened chat is never wiped after it.
  useLayoutEffect(() => {
    text.value = "";
    completion.value = null;
    pickerOpen.value = false;
    area.current?.focus();
  }, [open.path]);

  useLayoutEffect(() => {
    const element = area.current;
    if (!element) return;
    element.style.height = "auto";
    element.style.height = `${Math.min(MAX_HEIGHT, element.scrollHeight)}px`;
  }, [text.value]);

  const updateCompletion = () => {
    const element = area.current;
    if (!element) return;
    const caret = element.selectionStart ?? element.value.length;
    const next = element.selectionEnd === caret ? completionAt(element.value, caret, mentionNames(open, readerName())) : null;
    if (JSON.stringify(next) !== JSON.stringify(completion.peek())) selected.value = 0;
    completion.value = next;
  };

  // The names arrive with the chat's first read (and change with presence): an `@` typed before
  // then is offered the names as soon as they are known.
  useEffect(() => {
    if (area.current && document.activeElement === area.current) updateCompletion();
  }, [open.participants, open.presence, open.roles]);

  const complete = (name: string) => {
    const element = area.current;
    const found = completion.value;
    if (!element || !found) return;
    const value = element.value;
    const after = value.slice(found.end);
    const inserted = `${name}${after.startsWith(" ") ? "" : " "}`;
    const next = value.slice(0, found.start) + inserted + after;
    const caret = found.start + inserted.length;
    // The box first, caret included, so a key pressed right after Tab lands after the name (a
    // caret set on the next frame could move back over what was typed meanwhile); the render
    // that follows finds the box already holding this text and leaves the caret alone.
    element.value = next;
    element.focus();
    element.setSelectionRange(caret, caret);
    text.value = next;
    completion.value = null;
  };

  const submit = async (body: string) => {
    if (!body.trim() || sending.value) return;
    sending.value = true;
    try {
      // Trailing spaces (a completed @name leaves one) are nothing the reader needs.
      const sent = await send(body.trimEnd());
      if (sent && text.value === body) text.value = "";
    } finally {
      sending.value = false;
      area.current?.focus();
    }
  };

  const list = completion.value;
  return (
    <div class="chat-composer">
      {list ? (
        <ul class="chat-completions" role="listbox" aria-label="Names">
          {list.names.map((name, index) => (
            <li
              key={name}
              role="option"
              aria-selected={index === selected.value}
              class={index === selected.value ? "selected" : ""}
              onMouseDown={(event) => {
                event.preventDefault();
                complete(name);
              }}
            >
              @{name}
            </li>
          ))}
          <li class="chat-completions-hint" aria-hidden="true">
            <kbd>Tab</kbd> completes
          </li>
        </ul>
      ) : null}
      {pickerOpen.value ? (
        <GifPicker
          workspace={open.workspace}
          close={() => (pickerOpen.value = false)}
          pick={(name) => {
            pickerOpen.value = false;
            void submit(`![${name}](gif:${name})`);
          }}
        />
      ) : null}
      <div class="chat-box">
        <textarea
          ref={area}
          class="chat-input scroll-quiet"
          rows={1}
          value={text.value}
          placeholder={`Message as ${readerName()}`}
          aria-label="Message"
          onInput={(event) => {
            text.value = event.currentTarget.value;
            updateCompletion();
          }}
          onClick={updateCompletion}
          onKeyUp={(event) => {
            if (event.key === "ArrowLeft" || event.key === "ArrowRight" || event.key === "Home" || event.key === "End") {
              updateCompletion();
            }
          }}
          onBlur={() => window.setTimeout(() => (completion.value = null), 100)}
          onKeyDown={(event) => {
            const found = completion.value;
            if (found && (event.key === "Tab" || event.key === "ArrowDown" || event.key === "ArrowUp")) {
              event.preventDefault();
              if (event.key === "Tab") complete(found.names[selected.value] ?? found.names[0]!);
              else {
                const step = event.key === "ArrowDown" ? 1 : found.names.length - 1;
                selected.value = (selected.value + step) % found.names.length;
              }
              return;
            }
            if (found && event.key === "Escape") {
              event.preventDefault();
              event.stopPropagation();
              completion.value = null;
              return;
            }
            if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              completion.value = null;
              void submit(event.currentTarget.value);
            }
          }}
        />
        <div class="chat-box-tools">
          <label class="chat-as" title="The name your messages are posted as">
            <span>as</span>
            <input
              type="text"
              value={asName.value}
              placeholder={readerName()}
              maxLength={60}
              spellcheck={false}
              aria-label="Post as"
              onInput={(event) => setAsName(event.currentTarget.value)}
            />
          </label>
          <span class="chat-box-spacer" />
          <span class="chat-keys" aria-hidden="true">
            <kbd>Enter</kbd> sends · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · <kbd>@</kbd> mentions
          </span>
          <button
            class={`icon-button chat-gif-button ${pickerOpen.value ? "pressed" : ""}`}
            onClick={() => (pickerOpen.value = !pickerOpen.value)}
            title="Post a reaction"
            aria-label="Reactions"
            aria-expanded={pickerOpen.value}
          >
            <ChatIcon name="smile" />
          </button>
          <button
            class="button button-primary chat-send"
            disabled={!text.value.trim() || sending.value}
            onClick={() => void submit(text.value)}
            title="Send (Enter)"
          >
            <ChatIcon name="send" size={14} />
            <span>Send</span>
          </button>
        </div>
      </div>
    </div>
  );
}
