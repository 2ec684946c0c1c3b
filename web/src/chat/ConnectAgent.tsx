// Connect an agent: a name, a role (a template or typed) and the ready-to-paste prompt with
// the exact `quire chat` commands for this chat. Copying the prompt saves the role in the
// chat; the saved roles are listed with a button to remove each.

import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { toast } from "../state";
import { chatApi } from "./chatApi";
import { ChatIcon } from "./ChatIcons";
import { readerName, saveRole } from "./chatState";
import { copyText } from "../clipboard";
import { Dialog } from "./Popup";
import { agentPrompt, MAX_ROLE_CHARS, ROLE_TEMPLATES } from "./words";

const LAST_POSITION = 2 ** 31 - 1;

export interface ConnectTarget {
  path: string;
  workspace: string;
  title: string;
}

export function ConnectAgent({ target, close }: { target: ConnectTarget; close: () => void }) {
  const name = useSignal("");
  const role = useSignal("");
  const template = useSignal<string | null>(null);
  const roles = useSignal<Record<string, string> | null>(null);
  const copied = useSignal(false);

  const loadRoles = async () => {
    try {
      // Only the roles are wanted: ask for no messages, and mark nothing read.
      roles.value = (await chatApi.read(target.path, "", LAST_POSITION)).roles;
    } catch {
      roles.value = {};
    }
  };
  useEffect(() => void loadRoles(), [target.path]);

  const chosen = ROLE_TEMPLATES.find((item) => item.label === template.value);
  const agentName = name.value.trim();
  const prompt = agentPrompt({
    path: target.path,
    workspace: target.workspace,
    title: target.title,
    name: agentName || "agent",
    role: role.value,
    person: readerName(),
    lead: Boolean(chosen?.lead),
  });

  const pickTemplate = (label: string) => {
    const item = ROLE_TEMPLATES.find((candidate) => candidate.label === label)!;
    if (template.value === label) {
      // Clicking the active role again clears what it filled in.
      if (name.value === item.name) name.value = "";
      if (role.value === item.trait) role.value = "";
      template.value = null;
      return;
    }
    const previous = ROLE_TEMPLATES.find((candidate) => candidate.label === template.value);
    if (!name.value.trim() || name.value === previous?.name) name.value = item.name;
    role.value = item.trait;
    template.value = label;
  };

  const copy = async () => {
    if (!(await copyText(prompt))) {
      toast("The browser would not copy; select the prompt and copy it by hand.", "error");
      return;
    }
    copied.value = true;
    window.setTimeout(() => (copied.value = false), 1600);
    if (agentName && role.value.trim()) {
      if (await saveRole(target.path, agentName, role.value.trim().slice(0, MAX_ROLE_CHARS))) await loadRoles();
    }
  };

  const saved = Object.entries(roles.value ?? {});
  return (
    <Dialog title="Connect an agent" label="Connect an agent" close={close} wide class="chat-connect-dialog">
      <p class="chat-dialog-lead">
        Paste this prompt into a coding agent (Claude Code, Codex, …). It joins <strong>{target.title}</strong> under the name
        you give it, and keeps talking here until it is told to leave.
      </p>
      <div class="chat-field-row">
        <label class="chat-field chat-field-name">
          <span>Name</span>
          <input
            type="text"
            value={name.value}
            placeholder="e.g. builder"
            maxLength={60}
            spellcheck={false}
            onInput={(event) => (name.value = event.currentTarget.value)}
            data-autofocus
          />
        </label>
      </div>
      <div class="chat-field">
        <span>Role</span>
        <div class="chat-templates" role="group" aria-label="Role templates">
          {ROLE_TEMPLATES.map((item) => (
            <button
              key={item.label}
              class={`chat-template ${template.value === item.label ? "on" : ""}`}
              aria-pressed={template.value === item.label}
              onClick={() => pickTemplate(item.label)}
              title={item.trait}
            >
              {item.label}
            </button>
          ))}
        </div>
        <textarea
          class="chat-role-input"
          rows={2}
          value={role.value}
          maxLength={MAX_ROLE_CHARS}
          placeholder="What it should do here (optional): one or two lines."
          aria-label="What the agent should do here"
          onInput={(event) => {
            role.value = event.currentTarget.value;
            if (chosen && role.value !== chosen.trait) template.value = null;
          }}
        />
      </div>
      <div class="chat-field">
        <span>Prompt</span>
        <div class="chat-prompt">
          <pre class="chat-prompt-text scroll-quiet" aria-label="The prompt to paste into the agent">
            {prompt}
          </pre>
          <button class={`button ${copied.value ? "" : "button-primary"} chat-prompt-copy`} onClick={() => void copy()}>
            <ChatIcon name={copied.value ? "check" : "copy"} size={14} />
            <span>{copied.value ? "Copied" : "Copy prompt"}</span>
          </button>
        </div>
        <p class="chat-field-note">
          {agentName && role.value.trim()
            ? `Copying saves the role for ${agentName} in this chat; every wait that brings it messages reminds it.`
            : "Give a name and a role to save the role in this chat when you copy."}
        </p>
      </div>
      <div class="chat-field">
        <span>Saved roles</span>
        {roles.value === null ? (
          <p class="chat-field-note">Loading…</p>
        ) : saved.length === 0 ? (
          <p class="chat-field-note">No agent has a role in this chat yet.</p>
        ) : (
          <ul class="chat-roles">
            {saved.map(([holder, text]) => (
              <li key={holder}>
                <strong>{holder}</strong>
                <span>{text}</span>
                <button
                  class="icon-button"
                  title={`Remove ${holder}'s role`}
                  aria-label={`Remove ${holder}'s role`}
                  onClick={async () => {
                    if (await saveRole(target.path, holder, "")) await loadRoles();
                  }}
                >
                  <ChatIcon name="x" size={14} />
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Dialog>
  );
}
