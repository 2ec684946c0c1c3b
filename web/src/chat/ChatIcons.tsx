// The chat screens' line icons, drawn like the window's (16px, stroke follows currentColor).

import type { JSX } from "preact";

import { LineIcon } from "../components/Icons";

const paths = {
  chat: (
    <>
      <path d="M2.5 3.5h11v7.5h-6.5l-3.5 2.5v-2.5h-1z" />
      <path d="M5.5 6.5h5M5.5 8.5h3" />
    </>
  ),
  back: <path d="M7 3.5L2.5 8 7 12.5M2.5 8h11" />,
  pin: (
    <>
      <path d="M6 2.5h4l-.5 4 2 2v1h-7v-1l2-2z" />
      <path d="M8 9.5v4" />
    </>
  ),
  collapse: <path d="M8 4L4 8l4 4M12.5 4l-4 4 4 4" />,
  expand: <path d="M8 4l4 4-4 4M3.5 4l4 4-4 4" />,
  plus: <path d="M8 3v10M3 8h10" />,
  send: <path d="M2.5 8L13.5 2.8 10.5 13.5 7.6 9 2.5 8zM7.6 9l5.9-6.2" />,
  smile: (
    <>
      <circle cx="8" cy="8" r="5.75" />
      <path d="M5.6 9.4c.6.9 1.4 1.35 2.4 1.35s1.8-.45 2.4-1.35M6 6.4v.1M10 6.4v.1" />
    </>
  ),
  x: <path d="M4.5 4.5l7 7M11.5 4.5l-7 7" />,
  plug: (
    <>
      <path d="M6 2.5v3M10 2.5v3M4.5 5.5h7v2.5a3.5 3.5 0 0 1-7 0z" />
      <path d="M8 11.5v2.5" />
    </>
  ),
  note: (
    <>
      <path d="M4 2.5h5l3 3v8a.5.5 0 0 1-.5.5h-7.5a.5.5 0 0 1-.5-.5v-10.5a.5.5 0 0 1 .5-.5z" />
      <path d="M9 2.5v3h3M6 8.5h4M6 11h3" />
    </>
  ),
  copy: (
    <>
      <rect x="5.5" y="5.5" width="8" height="8" rx="1.2" />
      <path d="M10.5 5.5V3.7a1.2 1.2 0 0 0-1.2-1.2H3.7a1.2 1.2 0 0 0-1.2 1.2v5.6a1.2 1.2 0 0 0 1.2 1.2h1.8" />
    </>
  ),
  trash: <path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.5h5.8l.6-8.5M7 7v3.5M9 7v3.5" />,
  down: <path d="M8 3v10M4 9l4 4 4-4" />,
  check: <path d="M3.5 8.5l3 3 6-7" />,
  alert: (
    <>
      <path d="M8 2.5l6 10.5H2z" />
      <path d="M8 6.5v3M8 11.2v.1" />
    </>
  ),
} satisfies Record<string, JSX.Element>;

export type ChatIconName = keyof typeof paths;

export function ChatIcon({ name, size = 16, class: className }: { name: ChatIconName; size?: number; class?: string }) {
  return (
    <LineIcon size={size} class={className}>
      {paths[name]}
    </LineIcon>
  );
}
