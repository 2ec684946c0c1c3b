// Line icons drawn inline (no icon font, no network): 16px, stroke follows currentColor.

import type { ComponentChildren, JSX } from "preact";

const paths: Record<string, JSX.Element> = {
  chevron: <path d="M6 4l4 4-4 4" />,
  folder: <path d="M2.5 4.5a1 1 0 0 1 1-1h3l1.5 1.5h4.5a1 1 0 0 1 1 1v6a1 1 0 0 1-1 1h-9a1 1 0 0 1-1-1z" />,
  file: (
    <>
      <path d="M4 2.5h5l3 3v8a.5.5 0 0 1-.5.5h-7.5a.5.5 0 0 1-.5-.5v-10.5a.5.5 0 0 1 .5-.5z" />
      <path d="M9 2.5v3h3M6 8.5h4M6 11h3" />
    </>
  ),
  search: (
    <>
      <circle cx="7" cy="7" r="4.25" />
      <path d="M10.2 10.2l3.3 3.3" />
    </>
  ),
  clock: (
    <>
      <circle cx="8" cy="8" r="5.75" />
      <path d="M8 5v3.2l2 1.3" />
    </>
  ),
  x: <path d="M4.5 4.5l7 7M11.5 4.5l-7 7" />,
  read: (
    <>
      <path d="M2 4c2-1 4-1 6 .5C10 3 12 3 14 4v8.5c-2-1-4-1-6 .5-2-1.5-4-1.5-6-.5z" />
      <path d="M8 4.5V13" />
    </>
  ),
  edit: (
    <>
      <path d="M10.5 3l2.5 2.5-7 7H3.5V10z" />
      <path d="M9 4.5L11.5 7" />
    </>
  ),
  source: <path d="M5.5 5L2.5 8l3 3M10.5 5l3 3-3 3M9 3.5l-2 9" />,
  present: (
    <>
      <rect x="2" y="3" width="12" height="8" rx="1" />
      <path d="M8 11v2.5M5.5 13.5h5" />
    </>
  ),
  activity: <path d="M1.5 8.5h3l2-4.5 3 8 2-3.5h3" />,
  command: (
    <path d="M5.5 10.5h5v-5h-5zM5.5 5.5V4a1.5 1.5 0 1 0-1.5 1.5zM10.5 5.5H12a1.5 1.5 0 1 0-1.5-1.5zM10.5 10.5V12a1.5 1.5 0 1 0 1.5-1.5zM5.5 10.5H4a1.5 1.5 0 1 0 1.5 1.5z" />
  ),
  menu: <path d="M2.5 4.5h11M2.5 8h11M2.5 11.5h11" />,
  sidebar: (
    <>
      <rect x="2" y="3" width="12" height="10" rx="1.5" />
      <path d="M6 3v10" />
    </>
  ),
  check: <path d="M3.5 8.5l3 3 6-7" />,
  alert: (
    <>
      <path d="M8 2.5l6 10.5H2z" />
      <path d="M8 6.5v3M8 11.2v.1" />
    </>
  ),
  save: (
    <>
      <path d="M3 2.5h8l2.5 2.5v8a.5.5 0 0 1-.5.5H3a.5.5 0 0 1-.5-.5V3a.5.5 0 0 1 .5-.5z" />
      <path d="M5 2.5v3h5v-3M5 13.5v-4h6v4" />
    </>
  ),
  review: (
    <>
      <path d="M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z" />
      <path d="M5.5 7l1.5 1.5 3-3" />
    </>
  ),
  spark: <path d="M8 2v3M8 11v3M2 8h3M11 8h3M4 4l2 2M10 10l2 2M12 4l-2 2M6 10l-2 2" />,
  plus: <path d="M8 3v10M3 8h10" />,
  export: <path d="M8 10V2.5M5 5.5l3-3 3 3M3 9.5v3a1 1 0 0 0 1 1h8a1 1 0 0 0 1-1v-3" />,
  diff: <path d="M5 2.5v6M2 5.5h6M9 11.5h5M11.5 2.5l-6 11" />,
  settings: (
    <>
      <path d="M2.5 4.5h6M12 4.5h1.5M2.5 11.5h1.5M7.5 11.5h6" />
      <circle cx="10.2" cy="4.5" r="1.7" />
      <circle cx="5.8" cy="11.5" r="1.7" />
    </>
  ),
  copy: (
    <>
      <rect x="5.5" y="5.5" width="8" height="8" rx="1.2" />
      <path d="M10.5 5.5V3.7a1.2 1.2 0 0 0-1.2-1.2H3.7a1.2 1.2 0 0 0-1.2 1.2v5.6a1.2 1.2 0 0 0 1.2 1.2h1.8" />
    </>
  ),
  trash: (
    <>
      <path d="M2.5 4.5h11M6 4.5V3a.5.5 0 0 1 .5-.5h3a.5.5 0 0 1 .5.5v1.5" />
      <path d="M4 4.5l.7 8.6a.5.5 0 0 0 .5.4h5.6a.5.5 0 0 0 .5-.4l.7-8.6M6.8 7v4M9.2 7v4" />
    </>
  ),
  download: <path d="M8 2.5V10M5 7l3 3 3-3M3 12.5h10" />,
  upload: <path d="M8 10V2.5M5 5.5l3-3 3 3M3 12.5h10" />,
  target: (
    <>
      <circle cx="8" cy="8" r="5" />
      <circle cx="8" cy="8" r="1.5" />
    </>
  ),
  chat: <path d="M2.5 3.5h11v7.5h-6.5l-3 2.5v-2.5h-1.5z" />,
  plug: (
    <>
      <path d="M6 2.5v3M10 2.5v3M4.5 5.5h7v2.5a3.5 3.5 0 0 1-7 0z" />
      <path d="M8 11.5v2.5" />
    </>
  ),
};

export type IconName = keyof typeof paths;

export function Icon({ name, size = 16, class: className }: { name: IconName; size?: number; class?: string }) {
  return (
    <LineIcon size={size} class={className}>
      {paths[name]}
    </LineIcon>
  );
}

/** The frame every line icon shares: a 16-unit box, stroked in the text colour. */
export function LineIcon({ size = 16, class: className, children }: { size?: number; class?: string; children: ComponentChildren }) {
  return (
    <svg
      class={`icon ${className ?? ""}`}
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      stroke-width="1.4"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
    >
      {children}
    </svg>
  );
}
