// The admin page (multi mode): accounts, served workspaces, grants and access groups. A
// superadmin sees all four; a workspace admin the grants of the workspaces it manages. The
// server checks every change; refusals show its message.

import { useSignal, type Signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { ActionForm, field, Outcome, Section } from "./Forms";
import { teamApi, type Access, type AdminOverview, type Role, type Subject } from "./teamApi";
import { account, messageOf, when } from "./teamState";

const ROLES: Role[] = ["collaborator", "admin", "superadmin"];

type Page = Signal<AdminOverview | null>;

/** Run a change that answers the page's data afresh; a failure lands in ``error``. */
async function change(page: Page, error: Signal<string | null>, run: () => Promise<AdminOverview>): Promise<void> {
  error.value = null;
  try {
    page.value = await run();
  } catch (failure) {
    error.value = messageOf(failure);
  }
}

function Users({ page }: { page: Page }) {
  const error = useSignal<string | null>(null);
  const data = page.value!;
  const me = account.value?.username;
  const names = data.users.map((user) => user.username);
  return (
    <Section id="admin-users" title="Accounts">
      <table class="team-table">
        <caption class="visually-hidden">Accounts</caption>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Role</th>
            <th scope="col">State</th>
            <th scope="col">Made</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {data.users.map((user) => (
            <tr key={user.username}>
              <td>{user.username}</td>
              <td>{user.role}</td>
              <td>{user.disabled ? "disabled" : user.hasPassword ? "active" : "no password (tokens only)"}</td>
              <td>{when(user.createdAt)}</td>
              <td class="team-actions">
                {user.username === me ? (
                  <span class="team-muted">you</span>
                ) : (
                  <>
                    <button
                      class="button button-quiet"
                      type="button"
                      onClick={() => change(page, error, () => teamApi.setDisabled(user.username, !user.disabled))}
                    >
                      {user.disabled ? "Enable" : "Disable"}
                    </button>
                    <button
                      class="button button-quiet"
                      type="button"
                      aria-label={`Delete the account ${user.username}`}
                      onClick={() => {
                        if (!window.confirm(`Delete the account ${user.username} with its tokens and grants?`)) return;
                        void change(page, error, () => teamApi.deleteUser(user.username));
                      }}
                    >
                      Delete
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Outcome error={error.value} />
      <div class="team-forms">
        <ActionForm
          label="Add an account"
          submit="Add account"
          action={async (form) => {
            const password = field(form, "password");
            page.value = await teamApi.addUser(field(form, "username"), field(form, "role") as Role, password || null);
            form.reset();
            return "Account added.";
          }}
        >
          <h3>Add an account</h3>
          <label>
            Username
            <input name="username" required maxLength={32} autocomplete="off" />
          </label>
          <label>
            Role
            <select name="role">
              {ROLES.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
          </label>
          <label>
            Password (leave empty for a tokens-only account)
            <input name="password" type="password" autocomplete="new-password" />
          </label>
        </ActionForm>
        <ActionForm
          label="Change a role"
          submit="Change role"
          action={async (form) => {
            page.value = await teamApi.setRole(field(form, "username"), field(form, "role") as Role);
            return "Role changed.";
          }}
        >
          <h3>Change a role</h3>
          <AccountPicker names={names} />
          <label>
            New role
            <select name="role">
              {ROLES.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
          </label>
        </ActionForm>
        <ActionForm
          label="Set a password"
          submit="Set password"
          action={async (form) => {
            page.value = await teamApi.resetPassword(field(form, "username"), field(form, "password"));
            form.reset();
            return "Password set; that account's browsers were signed out.";
          }}
        >
          <h3>Set a password</h3>
          <AccountPicker names={names} />
          <label>
            New password
            <input name="password" type="password" autocomplete="new-password" required />
          </label>
        </ActionForm>
      </div>
    </Section>
  );
}

function AccountPicker({ names, name = "username", label = "Account" }: { names: string[]; name?: string; label?: string }) {
  return (
    <label>
      {label}
      <select name={name} required>
        {names.map((each) => (
          <option key={each} value={each}>
            {each}
          </option>
        ))}
      </select>
    </label>
  );
}

function Workspaces({ page }: { page: Page }) {
  const data = page.value!;
  return (
    <Section id="admin-workspaces" title="Workspaces">
      <p class="team-lead">The folders this server serves, by the names grants use. They are set when the server starts.</p>
      <ul class="team-list">
        {data.workspaces.map((workspace) => (
          <li key={workspace.path}>
            <strong>{workspace.name}</strong> <span class="team-muted">{workspace.path}</span>
            {workspace.manageable ? null : <span class="team-muted"> · you do not manage its grants</span>}
          </li>
        ))}
      </ul>
    </Section>
  );
}

function subjectOf(grant: { username: string | null; group: string | null }): Subject {
  return grant.username !== null ? { username: grant.username } : { group: grant.group ?? "" };
}

function Grants({ page }: { page: Page }) {
  const error = useSignal<string | null>(null);
  const kind = useSignal<"user" | "group">("user");
  const data = page.value!;
  const managed = data.workspaces.filter((workspace) => workspace.manageable);
  return (
    <Section id="admin-grants" title="Grants">
      <p class="team-lead">
        Read or write on a whole workspace or a folder in it. Grants only add access; no role reads notes without one.
      </p>
      {data.grants.length === 0 ? (
        <p class="team-lead">No grants {data.everything ? "yet" : "on the workspaces you manage"}.</p>
      ) : (
        <table class="team-table">
          <caption class="visually-hidden">Grants</caption>
          <thead>
            <tr>
              <th scope="col">For</th>
              <th scope="col">Workspace</th>
              <th scope="col">Folder</th>
              <th scope="col">Access</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.grants.map((grant) => {
              const who = grant.username ?? `group ${grant.group}`;
              return (
                <tr key={`${who}/${grant.workspace}/${grant.prefix}`}>
                  <td>{who}</td>
                  <td>{grant.workspace}</td>
                  <td>{grant.prefix || "(all of it)"}</td>
                  <td>{grant.access}</td>
                  <td>
                    <button
                      class="button button-quiet"
                      type="button"
                      aria-label={`Revoke ${grant.access} on ${grant.workspace}/${grant.prefix} from ${who}`}
                      onClick={() =>
                        change(page, error, () => teamApi.revoke(subjectOf(grant), grant.workspace, grant.prefix))
                      }
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Outcome error={error.value} />
      {managed.length === 0 ? (
        <p class="team-lead">
          You manage the grants of a workspace once you have write access to all of it. Ask a superadmin.
        </p>
      ) : (
        <ActionForm
          label="Grant access"
          submit="Grant"
          action={async (form) => {
            const subject: Subject =
              kind.value === "user" ? { username: field(form, "username") } : { group: field(form, "group") };
            page.value = await teamApi.grant(
              subject,
              field(form, "workspace"),
              field(form, "prefix"),
              field(form, "access") as Access,
            );
            return "Granted.";
          }}
        >
          <h3>Grant access</h3>
          <fieldset class="team-choice">
            <legend>To</legend>
            <label>
              <input type="radio" name="kind" checked={kind.value === "user"} onChange={() => (kind.value = "user")} />
              an account
            </label>
            <label>
              <input type="radio" name="kind" checked={kind.value === "group"} onChange={() => (kind.value = "group")} />
              a group
            </label>
          </fieldset>
          {kind.value === "user" ? (
            <AccountPicker names={data.users.map((user) => user.username)} />
          ) : (
            <AccountPicker names={data.groups.map((group) => group.name)} name="group" label="Group" />
          )}
          <label>
            Workspace
            <select name="workspace" required>
              {managed.map((workspace) => (
                <option key={workspace.name} value={workspace.name}>
                  {workspace.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Folder or file (empty: the whole workspace)
            <input name="prefix" placeholder="e.g. notes/design" />
          </label>
          <label>
            Access
            <select name="access">
              <option value="read">read</option>
              <option value="write">write</option>
            </select>
          </label>
        </ActionForm>
      )}
    </Section>
  );
}

function Groups({ page }: { page: Page }) {
  const error = useSignal<string | null>(null);
  const data = page.value!;
  const names = data.users.map((user) => user.username);
  return (
    <Section id="admin-groups" title="Access groups">
      <p class="team-lead">A grant to a group reaches every member.</p>
      {data.groups.length === 0 ? <p class="team-lead">No groups yet.</p> : null}
      <ul class="team-list">
        {data.groups.map((group) => (
          <li key={group.name}>
            <strong>{group.name}</strong>{" "}
            <button
              class="button button-quiet"
              type="button"
              aria-label={`Delete the group ${group.name}`}
              onClick={() => {
                if (!window.confirm(`Delete the group ${group.name} and its grants?`)) return;
                void change(page, error, () => teamApi.deleteGroup(group.name));
              }}
            >
              Delete
            </button>
            <ul class="team-members">
              {group.members.length === 0 ? <li class="team-muted">no members</li> : null}
              {group.members.map((member) => (
                <li key={member}>
                  {member}{" "}
                  <button
                    class="button button-quiet"
                    type="button"
                    aria-label={`Take ${member} out of ${group.name}`}
                    onClick={() => change(page, error, () => teamApi.removeMember(group.name, member))}
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      <Outcome error={error.value} />
      <div class="team-forms">
        <ActionForm
          label="Add a group"
          submit="Add group"
          action={async (form) => {
            page.value = await teamApi.addGroup(field(form, "name"));
            form.reset();
          }}
        >
          <h3>Add a group</h3>
          <label>
            Name
            <input name="name" required maxLength={32} autocomplete="off" />
          </label>
        </ActionForm>
        {data.groups.length === 0 ? null : (
          <ActionForm
            label="Add a member"
            submit="Add member"
            action={async (form) => {
              page.value = await teamApi.addMember(field(form, "group"), field(form, "username"));
            }}
          >
            <h3>Add a member</h3>
            <AccountPicker names={data.groups.map((group) => group.name)} name="group" label="Group" />
            <AccountPicker names={names} />
          </ActionForm>
        )}
      </div>
    </Section>
  );
}

export function AdminPage() {
  const page = useSignal<AdminOverview | null>(null);
  const error = useSignal<string | null>(null);
  useEffect(() => {
    teamApi.overview().then(
      (data) => (page.value = data),
      (failure: unknown) => (error.value = messageOf(failure)),
    );
  }, []);
  if (error.value) return <Outcome error={error.value} />;
  if (!page.value) return <p class="team-lead">Loading…</p>;
  return (
    <>
      {page.value.everything ? <Users page={page} /> : null}
      <Workspaces page={page} />
      <Grants page={page} />
      {page.value.everything ? <Groups page={page} /> : null}
    </>
  );
}
