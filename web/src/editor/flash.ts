// Flashing an agent's edit in the editor: the text it changed glows for a moment, labelled
// with the agent's name. The range comes from the Yjs update itself (exact, in this editor's
// positions); the name comes from the server's `document` event, which may arrive just before
// or just after that update, so the two are paired within a short window.

import { type ChangeDesc, StateEffect, StateField, type Range } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate, WidgetType } from "@codemirror/view";
import { ySyncAnnotation } from "y-codemirror.next";
import { colorFor } from "../identity";

const PAIRING_MS = 1500;
const FLASH_MS = 2600;

interface Span {
  from: number;
  to: number;
}

interface Flash {
  id: number;
  spans: Span[];
  author: string;
}

const mapSpans = (spans: Span[], changes: ChangeDesc): Span[] =>
  spans.map((span) => ({ from: changes.mapPos(span.from, -1), to: changes.mapPos(span.to, 1) }));

const addFlash = StateEffect.define<Flash>({
  map: (flash, changes) => ({ ...flash, spans: mapSpans(flash.spans, changes) }),
});
const endFlash = StateEffect.define<number>();

class NameWidget extends WidgetType {
  constructor(
    readonly author: string,
    readonly id: number,
  ) {
    super();
  }
  override eq(other: NameWidget): boolean {
    return other.id === this.id;
  }
  toDOM(): HTMLElement {
    const mark = document.createElement("span");
    mark.className = "cm-agent-name";
    mark.style.setProperty("--agent", colorFor(this.author));
    // The name is drawn by CSS from an attribute, so it never joins the document's text.
    const label = document.createElement("span");
    label.className = "cm-agent-label";
    label.dataset.name = this.author;
    label.setAttribute("aria-label", `Edited by ${this.author}`);
    mark.appendChild(label);
    return mark;
  }
  override ignoreEvent(): boolean {
    return true;
  }
}

const flashes = StateField.define<Flash[]>({
  create: () => [],
  update(value, tr) {
    let next = tr.docChanged ? value.map((flash) => ({ ...flash, spans: mapSpans(flash.spans, tr.changes) })) : value;
    for (const effect of tr.effects) {
      if (effect.is(addFlash)) next = [...next, effect.value];
      if (effect.is(endFlash)) next = next.filter((flash) => flash.id !== effect.value);
    }
    return next;
  },
  provide: (field) =>
    EditorView.decorations.from(field, (list): DecorationSet => {
      const ranges: Range<Decoration>[] = [];
      for (const flash of list) {
        const color = colorFor(flash.author);
        for (const span of flash.spans) {
          if (span.to > span.from) {
            ranges.push(
              Decoration.mark({ class: "cm-agent-flash", attributes: { style: `--agent: ${color}` } }).range(
                span.from,
                span.to,
              ),
            );
          }
        }
        const first = flash.spans[0];
        if (first) ranges.push(Decoration.widget({ widget: new NameWidget(flash.author, flash.id), side: -1 }).range(first.from));
      }
      return Decoration.set(ranges, true);
    }),
});

/** The ranges one remote transaction changed (one agent edit), waiting for its author. */
interface Change {
  spans: Span[];
  at: number;
}

interface Attribution {
  author: string;
  from: number | null;
  until: number;
}

let flashIds = 0;

const nearest = <T>(items: T[], at: (item: T) => number | null, target: number | null): number => {
  if (target === null || items.length < 2) return 0;
  let best = 0;
  items.forEach((item, index) => {
    const position = at(item);
    const bestPosition = at(items[best]!);
    if (position !== null && (bestPosition === null || Math.abs(position - target) < Math.abs(bestPosition - target))) {
      best = index;
    }
  });
  return best;
};

class FlashTracker {
  private recent: Change[] = [];
  private pending: Attribution[] = [];

  constructor(readonly view: EditorView) {}

  update(update: ViewUpdate): void {
    if (!update.docChanged) return;
    const now = Date.now();
    this.recent = this.recent.filter((change) => now - change.at < PAIRING_MS);
    this.pending = this.pending.filter((attribution) => now < attribution.until);
    for (const tr of update.transactions) {
      if (!tr.docChanged) continue;
      this.recent = this.recent.map((change) => ({ ...change, spans: mapSpans(change.spans, tr.changes) }));
      if (tr.annotation(ySyncAnnotation) === undefined) continue;
      const spans: Span[] = [];
      tr.changes.iterChangedRanges((_fromA, _toA, fromB, toB) => {
        spans.push({ from: fromB, to: toB });
      });
      if (this.pending.length > 0) {
        const index = nearest(this.pending, (attribution) => attribution.from, spans[0]?.from ?? null);
        const [attribution] = this.pending.splice(index, 1);
        queueMicrotask(() => this.flash(spans, attribution!.author));
      } else {
        this.recent.push({ spans, at: now });
      }
    }
  }

  /** The server said `author` just edited this document, starting near `from` (UTF-16). */
  attribute(author: string, from: number | null): void {
    const now = Date.now();
    this.recent = this.recent.filter((change) => now - change.at < PAIRING_MS);
    if (this.recent.length === 0) {
      this.pending.push({ author, from, until: now + PAIRING_MS });
      return;
    }
    const index = nearest(this.recent, (change) => change.spans[0]?.from ?? null, from);
    const [change] = this.recent.splice(index, 1);
    this.flash(change!.spans, author);
  }

  private flash(spans: Span[], author: string): void {
    const length = this.view.state.doc.length;
    const inside = spans.map((span) => ({ from: Math.min(span.from, length), to: Math.min(span.to, length) }));
    if (inside.length === 0) return;
    const id = ++flashIds;
    this.view.dispatch({ effects: addFlash.of({ id, spans: inside, author }) });
    window.setTimeout(() => {
      if (this.view.dom.isConnected) this.view.dispatch({ effects: endFlash.of(id) });
    }, FLASH_MS);
  }
}

export const flashTracker = ViewPlugin.fromClass(FlashTracker);

export function agentFlash() {
  return [flashes, flashTracker];
}
