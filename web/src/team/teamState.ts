// Who is signed in (GET /api/account) and which team page is open: #account or #admin in the
// address, so a reload or a link lands on the same page. Only multi mode offers the pages.

import { computed, signal } from "@preact/signals";
import { teamApi, type AccountView } from "./teamApi";

export type TeamPage = "account" | "admin";

export const account = signal<AccountView | null>(null);
export const teamPage = signal<TeamPage | null>(null);
export const isMulti = computed(() => account.value?.mode === "multi");

const HASH = /^#(account|admin)$/;

function fromAddress(): void {
  const match = HASH.exec(location.hash);
  teamPage.value = match && isMulti.peek() ? (match[1] as TeamPage) : null;
}

/** Learn who is signed in, then open the page the address names (if this is a team server). */
export async function loadAccount(): Promise<void> {
  try {
    account.value = await teamApi.account();
  } catch {
    account.value = null;
  }
  fromAddress();
}

window.addEventListener("hashchange", fromAddress);
window.addEventListener("popstate", fromAddress);

export function openTeamPage(page: TeamPage): void {
  if (location.hash !== `#${page}`) history.pushState(null, "", `${location.pathname}${location.search}#${page}`);
  teamPage.value = page;
}

export function closeTeamPage(): void {
  if (HASH.test(location.hash)) history.pushState(null, "", location.pathname + location.search);
  teamPage.value = null;
}

/** The message to show for a failed request: the server's own words. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A time in ms since the epoch as the browser's local date and time; "never" for null. */
export function when(ms: number | null | undefined): string {
  return ms == null ? "never" : new Date(ms).toLocaleString();
}
