// Settings → Agents: connect the coding agents installed on this machine to Quire, and the
// auto-open hook. The same actions as `quire connect`, as buttons; each shows the exact command
// to run by hand, with a Copy button.

import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { api, ApiError, type AgentInfo, type AgentsOverview, type HookInfo, type Outcome } from "../api";
import { settingsOpen, toast } from "../state";
import { copyText } from "../clipboard";
import { Icon } from "./Icons";

const STATE_LABELS: Record<AgentInfo["state"], { text: string; tone: string }> = {
  connected: { text: "Connected", tone: "good" },
  other: { text: "Another server kept", tone: "warn" },
  stale: { text: "Needs repair", tone: "warn" },
  absent: { text: "Not connected", tone: "quiet" },
};

function CopyCommand({ command, label }: { command: string; label: string }) {
  const copied = useSignal(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <div class="command-box">
      <code class="command-text scroll-quiet" aria-label={label}>
        {command}
      </code>
      <button
        class={`button button-quiet copy-button ${copied.value ? "copied" : ""}`}
        onClick={async () => {
          if (!(await copyText(command))) {
            toast("The browser would not copy; select the command and copy it by hand.", "error");
            return;
          }
          copied.value = true;
          window.clearTimeout(timer.current);
          timer.current = window.setTimeout(() => (copied.value = false), 1600);
        }}
        title="Copy the command"
      >
        <Icon name={copied.value ? "check" : "copy"} size={14} />
        <span>{copied.value ? "Copied" : "Copy"}</span>
      </button>
    </div>
  );
}

/** The server's sentences mark commands and paths with backticks: show those as code. */
function Words({ text }: { text: string }) {
  const parts = text.split("`");
  if (parts.length % 2 === 0) return <>{text}</>;
  return <>{parts.map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : part))}</>;
}

function OutcomeNote({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return null;
  return (
    <p class={`settings-outcome ${outcome.ok ? "ok" : "not-ok"}`} role="status">
      <Icon name={outcome.ok ? "check" : "alert"} size={14} />
      <span>
        <Words text={outcome.message} />
      </span>
    </p>
  );
}

function actionLabel(agent: AgentInfo): string {
  if (agent.state === "connected") return "Connected";
  if (agent.state === "stale") return "Repair";
  return "Connect";
}

function AgentCard({ agent, reload }: { agent: AgentInfo; reload: () => Promise<void> }) {
  const busy = useSignal(false);
  const outcome = useSignal<Outcome | null>(null);
  const label = STATE_LABELS[agent.state];
  const actionable = agent.detected && (agent.state === "absent" || agent.state === "stale");
  const why = !agent.detected
    ? `${agent.name} is not installed on this machine`
    : agent.state === "other"
      ? "Quire keeps the server registered now; see above"
      : agent.state === "connected"
        ? `${agent.name} already runs this Quire`
        : "";
  const connect = async () => {
    busy.value = true;
    try {
      outcome.value = await api.connectAgent(agent.id);
      await reload();
    } catch (error) {
      outcome.value = { ok: false, message: error instanceof Error ? error.message : String(error) };
    } finally {
      busy.value = false;
    }
  };
  return (
    <li class={`agent-card ${agent.detected ? "" : "undetected"}`} data-agent={agent.id}>
      <div class="agent-head">
        <div class="agent-title">
          <span class="agent-name">{agent.name}</span>
          <span class={`agent-state tone-${agent.detected ? label.tone : "quiet"}`}>
            {agent.detected ? label.text : "Not installed"}
          </span>
        </div>
        <button
          class={`button ${actionable ? "button-primary" : ""} agent-action`}
          disabled={!actionable || busy.value}
          onClick={() => void connect()}
          title={why || `Register this Quire with ${agent.name}`}
        >
          {busy.value ? <span class="spinner" /> : <Icon name={agent.state === "connected" ? "check" : "plug"} size={14} />}
          <span>{actionLabel(agent)}</span>
        </button>
      </div>
      <p class="agent-detail">
        <Words text={agent.detail} />
      </p>
      <CopyCommand command={agent.command} label={`The command that connects ${agent.name}`} />
      <OutcomeNote outcome={outcome.value} />
    </li>
  );
}

function HookCard({ hook, enabled, reload }: { hook: HookInfo; enabled: boolean; reload: () => Promise<void> }) {
  const chat = useSignal(hook.chatInstalled);
  const busy = useSignal(false);
  const outcome = useSignal<Outcome | null>(null);
  const change = async (remove: boolean) => {
    busy.value = true;
    try {
      outcome.value = await api.changeHook(chat.value, remove);
      await reload();
    } catch (error) {
      outcome.value = { ok: false, message: error instanceof Error ? error.message : String(error) };
    } finally {
      busy.value = false;
    }
  };
  const upToDate = hook.installed && hook.chatInstalled === chat.value;
  return (
    <div class="agent-card hook-card">
      <div class="agent-head">
        <div class="agent-title">
          <span class="agent-name">Open what Claude Code writes</span>
          <span class={`agent-state tone-${hook.installed ? "good" : "quiet"}`}>
            {hook.installed ? "Installed" : "Not installed"}
          </span>
        </div>
      </div>
      <p class="agent-detail">
        When Claude Code writes or edits a Markdown file, Quire opens it here in Read view.
        {hook.detail ? (
          <>
            {" "}
            <Words text={hook.detail} />
          </>
        ) : null}
      </p>
      <label class="settings-check">
        <input
          type="checkbox"
          checked={chat.value}
          disabled={!enabled || busy.value}
          onChange={(event) => (chat.value = event.currentTarget.checked)}
        />
        <span>Also keep an agent in its chat while it waits for messages (the chat keep-alive hook)</span>
      </label>
      <CopyCommand command={hook.command} label="The command that installs the hook" />
      <div class="hook-actions">
        <button
          class="button button-primary"
          disabled={!enabled || busy.value || upToDate}
          onClick={() => void change(false)}
          title={enabled ? "Add the hook to ~/.claude/settings.json" : "Claude Code is not installed on this machine"}
        >
          {busy.value ? <span class="spinner" /> : <Icon name="plug" size={14} />}
          <span>{hook.installed ? "Update hook" : "Install hook"}</span>
        </button>
        {hook.installed ? (
          <button class="button" disabled={busy.value} onClick={() => void change(true)}>
            Remove
          </button>
        ) : null}
      </div>
      <OutcomeNote outcome={outcome.value} />
    </div>
  );
}

function AgentsSection() {
  const overview = useSignal<AgentsOverview | null>(null);
  const problem = useSignal("");
  const load = async () => {
    try {
      overview.value = await api.agents();
      problem.value = "";
    } catch (error) {
      problem.value =
        error instanceof ApiError && error.status === 404
          ? "This server cannot list agents. Run `quire connect claude-code`, `codex` or `cursor` in a terminal instead."
          : error instanceof Error
            ? error.message
            : String(error);
    }
  };
  useEffect(() => void load(), []);
  const data = overview.value;
  const claude = data?.agents.find((agent) => agent.id === "claude-code");
  return (
    <section class="settings-section" aria-labelledby="settings-agents">
      <h2 id="settings-agents">Connect an agent</h2>
      <p class="settings-lead">
        Agents reach Quire through <code>quire mcp</code>. Once connected, an agent can open documents in this window, edit
        them with you and ask for your review.
      </p>
      {problem.value ? (
        <div class="settings-problem" role="alert">
          <p>{problem.value}</p>
          <button class="button" onClick={() => void load()}>
            Try again
          </button>
        </div>
      ) : !data ? (
        <p class="settings-loading">
          <span class="spinner" /> Asking the agents on this machine…
        </p>
      ) : (
        <>
          <ul class="agent-list">
            {data.agents.map((agent) => (
              <AgentCard key={agent.id} agent={agent} reload={load} />
            ))}
          </ul>
          <h3>Hooks</h3>
          <HookCard hook={data.hook} enabled={Boolean(claude?.detected)} reload={load} />
        </>
      )}
    </section>
  );
}

// Which Quire this is: the version the server names on /health (the one `quire --version` prints).
function AboutSection() {
  const version = useSignal<string | null>(null);
  useEffect(() => {
    api.health().then(
      (health) => (version.value = health.version),
      () => (version.value = null),
    );
  }, []);
  return (
    <section class="settings-section" aria-labelledby="settings-about">
      <h2 id="settings-about">About</h2>
      <p class="settings-about">{version.value === null ? "Quire" : `Quire ${version.value}`}</p>
    </section>
  );
}

export function Settings() {
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => {
    dialog.current?.focus();
  }, []);
  const close = () => (settingsOpen.value = false);
  return (
    <div class="settings-scrim" onMouseDown={(event) => event.target === event.currentTarget && close()}>
      <div class="settings" role="dialog" aria-modal="true" aria-label="Settings" tabIndex={-1} ref={dialog}>
        <header class="settings-head">
          <Icon name="settings" />
          <h1>Settings</h1>
          <nav class="settings-nav" aria-label="Settings sections">
            <button class="on" aria-current="page">
              Agents
            </button>
          </nav>
          <button class="icon-button" onClick={close} title="Close (Esc)" aria-label="Close settings">
            <Icon name="x" />
          </button>
        </header>
        <div class="settings-body scroll-quiet">
          <AgentsSection />
          <AboutSection />
        </div>
      </div>
    </div>
  );
}
