// The account page (multi mode): who you are, your password, your API tokens, and signing out
// everywhere. Every rule is the server's; this page shows its answers and its refusals.

import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { copyText } from "../clipboard";
import { notifyUnauthorized } from "../api";
import { ActionForm, field, Outcome, Section } from "./Forms";
import { teamApi, type AccountToken, type NewAccountToken } from "./teamApi";
import { account, messageOf, when } from "./teamState";

function Who() {
  const me = account.value;
  if (!me) return null;
  return (
    <Section id="account-who" title="Signed in">
      <dl class="team-facts">
        <dt>Username</dt>
        <dd data-testid="account-username">{me.username}</dd>
        <dt>Role</dt>
        <dd>{me.role ?? "owner (the server's own token)"}</dd>
      </dl>
    </Section>
  );
}

function Password() {
  return (
    <Section id="account-password" title="Change password">
      <p class="team-lead">
        At least 12 characters, not containing your username. Every other browser signed in as you is signed out;
        your API tokens keep working.
      </p>
      <ActionForm
        label="Change password"
        submit="Change password"
        action={async (form) => {
          const next = field(form, "new_password");
          if (next !== field(form, "repeat_password")) throw new Error("The two new passwords differ: type them again.");
          await teamApi.changePassword(field(form, "current_password"), next);
          form.reset();
          return "Password changed. Other browsers were signed out.";
        }}
      >
        <label>
          Current password
          <input name="current_password" type="password" autocomplete="current-password" required />
        </label>
        <label>
          New password
          <input name="new_password" type="password" autocomplete="new-password" required minLength={12} />
        </label>
        <label>
          New password again
          <input name="repeat_password" type="password" autocomplete="new-password" required />
        </label>
      </ActionForm>
    </Section>
  );
}

function ShownOnce({ issued, dismiss }: { issued: NewAccountToken; dismiss: () => void }) {
  const copied = useSignal(false);
  return (
    <div class="team-once" role="status">
      <p>
        Your new token <strong>{issued.info.name}</strong>. Copy it now: it is shown only this once.
      </p>
      <code class="team-token" data-testid="new-token">
        {issued.token}
      </code>
      <div class="team-row">
        <button
          class="button"
          type="button"
          onClick={async () => (copied.value = await copyText(issued.token))}
        >
          {copied.value ? "Copied" : "Copy"}
        </button>
        <button class="button button-ghost" type="button" onClick={dismiss}>
          Done
        </button>
      </div>
    </div>
  );
}

function Tokens() {
  const tokens = useSignal<AccountToken[] | null>(null);
  const error = useSignal<string | null>(null);
  const issued = useSignal<NewAccountToken | null>(null);
  const load = async () => {
    try {
      tokens.value = (await teamApi.tokens()).tokens;
    } catch (failure) {
      error.value = messageOf(failure);
    }
  };
  useEffect(() => void load(), []);
  return (
    <Section id="account-tokens" title="API tokens">
      <p class="team-lead">
        For scripts and agents: send it as <code>Authorization: Bearer …</code>. A token acts as you, with your
        grants.
      </p>
      <ActionForm
        label="Make an API token"
        submit="Make token"
        action={async (form) => {
          const expires = field(form, "expires").trim();
          issued.value = await teamApi.createToken(field(form, "name"), expires || null);
          form.reset();
          await load();
        }}
      >
        <label>
          Name
          <input name="name" required maxLength={64} placeholder="e.g. laptop agent" />
        </label>
        <label>
          Expires after (optional)
          <input name="expires" placeholder="30d, 8w or 2027-01-31" />
        </label>
      </ActionForm>
      {issued.value ? <ShownOnce issued={issued.value} dismiss={() => (issued.value = null)} /> : null}
      <Outcome error={error.value} />
      {tokens.value === null ? null : tokens.value.length === 0 ? (
        <p class="team-lead">No tokens yet.</p>
      ) : (
        <table class="team-table">
          <caption class="visually-hidden">Your API tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Made</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.value.map((token) => (
              <tr key={token.id}>
                <td>{token.name}</td>
                <td>{when(token.createdAt)}</td>
                <td>{when(token.expiresAt)}</td>
                <td>{when(token.lastUsedAt)}</td>
                <td>{token.state === "revoked" ? `revoked ${when(token.revokedAt)}` : token.state}</td>
                <td>
                  {token.state === "active" ? (
                    <button
                      class="button button-quiet"
                      type="button"
                      aria-label={`Revoke the token ${token.name}`}
                      onClick={async () => {
                        error.value = null;
                        try {
                          tokens.value = (await teamApi.revokeToken(token.id)).tokens;
                        } catch (failure) {
                          error.value = messageOf(failure);
                        }
                      }}
                    >
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

function Everywhere() {
  return (
    <Section id="account-everywhere" title="Sign out everywhere">
      <p class="team-lead">Ends every browser session of your account, this one included. API tokens stay.</p>
      <ActionForm
        label="Sign out everywhere"
        submit="Sign out everywhere"
        danger
        action={async () => {
          await teamApi.signOutEverywhere();
          notifyUnauthorized();
        }}
      />
    </Section>
  );
}

export function AccountPage() {
  return (
    <>
      <Who />
      <Password />
      <Tokens />
      <Everywhere />
    </>
  );
}
