// Entry point of Quire's browser UI.

import { render } from "preact";
import { App } from "./components/App";
import "./metrics";
import "./styles/base.css";
import "./styles/app.css";
import "./styles/document.css";
import "./styles/settings.css";
import "./styles/chat.css";
import "./styles/files.css";
import "./styles/history.css";
import "./styles/team.css";

render(<App />, document.getElementById("app")!);
