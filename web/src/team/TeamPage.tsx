// The account and admin pages as one full-window page with its own header: which page, a way
// to the other one (when the account may see it), and back to the notes.

import { useEffect, useRef } from "preact/hooks";
import { AccountPage } from "./AccountPage";
import { AdminPage } from "./AdminPage";
import { account, closeTeamPage, openTeamPage, teamPage } from "./teamState";

export function TeamPage() {
  const page = teamPage.value;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [page]);
  if (!page) return null;
  const mayAdmin = account.value?.admin === true;
  return (
    <div class="team-page">
      <header class="team-head">
        <h1 tabIndex={-1} ref={heading}>
          {page === "account" ? "Account" : "Admin"}
        </h1>
        <nav class="team-nav" aria-label="Team pages">
          <button
            class={`button button-ghost ${page === "account" ? "on" : ""}`}
            aria-current={page === "account" ? "page" : undefined}
            onClick={() => openTeamPage("account")}
          >
            Account
          </button>
          {mayAdmin ? (
            <button
              class={`button button-ghost ${page === "admin" ? "on" : ""}`}
              aria-current={page === "admin" ? "page" : undefined}
              onClick={() => openTeamPage("admin")}
            >
              Admin
            </button>
          ) : null}
        </nav>
        <button class="button" onClick={closeTeamPage}>
          Back to notes
        </button>
      </header>
      <main class="team-body scroll-quiet">{page === "account" ? <AccountPage key="account" /> : <AdminPage key="admin" />}</main>
    </div>
  );
}

/** End this browser's session (a fetch: the page's no-referrer policy would send a form post
 * with `Origin: null`, which the server refuses), then go to the sign-in page. */
async function signOut(): Promise<void> {
  try {
    await fetch("/logout", { method: "POST", credentials: "same-origin" });
  } finally {
    location.assign("/login");
  }
}

/** The menu's entry to the team pages and sign-out, shown in multi mode only. */
export function TeamMenu() {
  const me = account.value;
  if (!me || me.mode !== "multi") return null;
  return (
    <div class="team-menu" role="group" aria-label="Your account">
      <button class="button button-quiet" onClick={() => openTeamPage("account")} title="Your account: password and API tokens">
        {me.username}
      </button>
      {me.admin ? (
        <button class="button button-quiet" onClick={() => openTeamPage("admin")} title="Accounts, workspaces, grants and groups">
          Admin
        </button>
      ) : null}
      {me.signedInBy === "browser" ? (
        <button class="button button-quiet" onClick={() => void signOut()}>
          Sign out
        </button>
      ) : null}
    </div>
  );
}
