// Small pieces the account and admin pages share: a form that runs one request and shows the
// server's message when it fails, and a page section.

import type { ComponentChildren } from "preact";
import { useSignal } from "@preact/signals";
import { messageOf } from "./teamState";

/** What a form shows under itself: the server's refusal (role=alert) or a short success note. */
export function Outcome({ error, done }: { error: string | null; done?: string | null }) {
  if (error) {
    return (
      <p class="team-error" role="alert">
        {error}
      </p>
    );
  }
  if (done) {
    return (
      <p class="team-done" role="status">
        {done}
      </p>
    );
  }
  return null;
}

/** A form whose submit runs ``action``; while it runs the button is disabled, and a failure
 * shows the server's message. ``action`` returns a success note (or nothing). */
export function ActionForm({
  label,
  action,
  submit,
  children,
  danger = false,
}: {
  label: string;
  action: (form: HTMLFormElement) => Promise<string | void>;
  submit: string;
  children?: ComponentChildren;
  danger?: boolean;
}) {
  const busy = useSignal(false);
  const error = useSignal<string | null>(null);
  const done = useSignal<string | null>(null);
  return (
    <form
      class="team-form"
      aria-label={label}
      onSubmit={async (event) => {
        event.preventDefault();
        const form = event.currentTarget;
        busy.value = true;
        error.value = null;
        done.value = null;
        try {
          const note = await action(form);
          done.value = note || null;
        } catch (failure) {
          error.value = messageOf(failure);
        } finally {
          busy.value = false;
        }
      }}
    >
      {children}
      <button class={`button ${danger ? "button-danger" : "button-primary"}`} type="submit" disabled={busy.value}>
        {submit}
      </button>
      <Outcome error={error.value} done={done.value} />
    </form>
  );
}

/** The value of the form's field ``name`` (an input or a select). */
export function field(form: HTMLFormElement, name: string): string {
  const element = form.elements.namedItem(name);
  return element instanceof HTMLInputElement || element instanceof HTMLSelectElement ? element.value : "";
}

export function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="team-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
