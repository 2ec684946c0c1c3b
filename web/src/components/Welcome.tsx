// What the window shows with no document open.

import { locate, title } from "../paths";
import { files, filesLoaded, openPath, paletteOpen, recents, settingsOpen } from "../state";
import { Icon } from "./Icons";

export function Welcome() {
  const recent = recents.value.slice(0, 5);
  const some = recent.length > 0 ? null : files.value.slice(0, 5);
  return (
    <div class="welcome">
      <div class="welcome-inner">
        <h1>No document open</h1>
        <p class="welcome-lead">
          Pick a file on the left, or press <kbd>Ctrl</kbd> <kbd>K</kbd> to find one. When an agent opens a document or
          asks for your review, it appears here.
        </p>
        {recent.length > 0 ? (
          <section>
            <h2>Recent</h2>
            <ul class="welcome-list">
              {recent.map((item) => (
                <li key={item.path}>
                  <button onClick={() => void openPath(item.path)} title={item.path}>
                    <Icon name="clock" size={14} />
                    <span>{title(item.fileName || item.path)}</span>
                    <span class="row-hint">{locate(item.path, files.value).folders.join(" / ")}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ) : some && some.length > 0 ? (
          <section>
            <h2>In the workspaces</h2>
            <ul class="welcome-list">
              {some.map((file) => (
                <li key={file.path}>
                  <button onClick={() => void openPath(file.path)} title={file.path}>
                    <Icon name="file" size={14} />
                    <span>{title(file.relPath)}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ) : filesLoaded.value ? null : (
          <p class="welcome-lead">Loading the workspaces…</p>
        )}
        <div class="welcome-actions">
          <button class="button welcome-palette" onClick={() => (paletteOpen.value = true)}>
            <Icon name="command" size={14} /> Open the command palette
          </button>
          <button class="button button-ghost" onClick={() => (settingsOpen.value = true)}>
            <Icon name="plug" size={14} /> Connect an agent
          </button>
        </div>
      </div>
    </div>
  );
}
