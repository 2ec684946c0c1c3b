// Small overlays of the chat screens: a dialog (closes with ×, Esc or a click outside), a
// right-click menu, and the avatar shown for a name.

import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { colorFor } from "../identity";
import { gifUrl } from "./chatApi";
import { ChatIcon, type ChatIconName } from "./ChatIcons";
import { initial } from "./words";

function useEscape(close: () => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      event.preventDefault();
      event.stopPropagation();
      close();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [close]);
}

export function Dialog({
  title,
  label,
  close,
  children,
  wide = false,
  class: className = "",
}: {
  title: ComponentChildren;
  label: string;
  close: () => void;
  children: ComponentChildren;
  wide?: boolean;
  class?: string;
}) {
  useEscape(close);
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const first = box.current?.querySelector<HTMLElement>("[data-autofocus], input, textarea, button.button-primary");
    first?.focus();
  }, []);
  return (
    <div class="chat-scrim" onMouseDown={(event) => event.target === event.currentTarget && close()}>
      <div class={`chat-dialog ${wide ? "wide" : ""} ${className}`} role="dialog" aria-modal="true" aria-label={label} ref={box}>
        <header class="chat-dialog-head">
          <h2>{title}</h2>
          <button class="icon-button" onClick={close} aria-label="Close" title="Close (Esc)">
            <ChatIcon name="x" />
          </button>
        </header>
        <div class="chat-dialog-body scroll-quiet">{children}</div>
      </div>
    </div>
  );
}

export interface MenuItem {
  label: string;
  icon: ChatIconName;
  run: () => void;
  danger?: boolean;
}

export function ContextMenu({ x, y, items, close }: { x: number; y: number; items: MenuItem[]; close: () => void }) {
  useEscape(close);
  const menu = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const element = menu.current;
    if (!element) return;
    const rect = element.getBoundingClientRect();
    element.style.left = `${Math.max(4, Math.min(x, window.innerWidth - rect.width - 8))}px`;
    element.style.top = `${Math.max(4, Math.min(y, window.innerHeight - rect.height - 8))}px`;
    element.querySelector<HTMLElement>("button")?.focus();
  }, [x, y]);
  useEffect(() => {
    const away = (event: Event) => {
      if (!menu.current?.contains(event.target as Node)) close();
    };
    window.addEventListener("mousedown", away, true);
    window.addEventListener("blur", close);
    window.addEventListener("resize", close);
    return () => {
      window.removeEventListener("mousedown", away, true);
      window.removeEventListener("blur", close);
      window.removeEventListener("resize", close);
    };
  }, [close]);
  return (
    <div
      class="chat-menu"
      role="menu"
      ref={menu}
      style={{ left: `${x}px`, top: `${y}px` }}
      onKeyDown={(event) => {
        if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
        event.preventDefault();
        const buttons = [...(menu.current?.querySelectorAll<HTMLButtonElement>("button") ?? [])];
        const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
        const next = (at + (event.key === "ArrowDown" ? 1 : buttons.length - 1)) % buttons.length;
        buttons[next]?.focus();
      }}
    >
      {items.map((item) => (
        <button
          key={item.label}
          role="menuitem"
          class={`chat-menu-item ${item.danger ? "danger" : ""}`}
          onClick={() => {
            close();
            item.run();
          }}
        >
          <ChatIcon name={item.icon} size={14} />
          <span>{item.label}</span>
        </button>
      ))}
    </div>
  );
}

/** A name's avatar: its saved picture (an <img>, so it stays inert), else its initial. */
export function Avatar({
  name,
  workspace,
  avatars,
  size = 32,
}: {
  name: string;
  workspace: string;
  avatars: Record<string, string>;
  size?: number;
}) {
  const picture =
    avatars[name] ?? Object.entries(avatars).find(([label]) => label.toLowerCase() === name.toLowerCase())?.[1];
  const style = { width: `${size}px`, height: `${size}px`, fontSize: `${Math.round(size * 0.42)}px` };
  if (picture && workspace) {
    return <img class="chat-avatar chat-avatar-picture" src={gifUrl(workspace, picture)} alt="" style={style} />;
  }
  return (
    <span class="chat-avatar" style={{ ...style, background: colorFor(name.toLowerCase()) }} aria-hidden="true">
      {initial(name)}
    </span>
  );
}
