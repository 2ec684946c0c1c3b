// CodeMirror for the Edit and Source views, bound to the live Y.Text. Edit reads like prose
// (a centred column, headings set larger); Source shows the Markdown as written, with line
// numbers. Both edit the same live document, with the other editors' cursors labelled.

import { defaultKeymap, indentWithTab } from "@codemirror/commands";
import { markdownKeymap, markdownLanguage } from "@codemirror/lang-markdown";
import { yamlFrontmatter } from "@codemirror/lang-yaml";
import {
  bracketMatching,
  codeFolding,
  foldGutter,
  foldKeymap,
  foldService,
  HighlightStyle,
  indentOnInput,
  LanguageSupport,
  syntaxHighlighting,
  syntaxTree,
} from "@codemirror/language";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { EditorState, type Extension } from "@codemirror/state";
import {
  crosshairCursor,
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  rectangularSelection,
} from "@codemirror/view";
import { tags as t } from "@lezer/highlight";
import { yCollab, yUndoManagerKeymap } from "y-codemirror.next";
import * as Y from "yjs";
import type { LiveDocument } from "../collab";
import { agentFlash } from "./flash";

const common = [
  { tag: t.emphasis, fontStyle: "italic" },
  { tag: t.strong, fontWeight: "650" },
  { tag: t.strikethrough, textDecoration: "line-through" },
  { tag: t.link, color: "var(--accent)" },
  { tag: t.url, color: "var(--accent)", textDecoration: "none", opacity: "0.85" },
  { tag: t.monospace, fontFamily: "var(--font-mono)", fontSize: "0.92em", color: "var(--code-text, inherit)" },
  { tag: t.quote, color: "var(--text-2)", fontStyle: "italic" },
  { tag: [t.processingInstruction, t.meta], color: "var(--faint)" },
  { tag: t.contentSeparator, color: "var(--faint)" },
  { tag: t.list, color: "var(--text)" },
  { tag: t.labelName, color: "var(--accent)" },
  { tag: [t.keyword, t.atom, t.bool], color: "var(--syn-keyword)" },
  { tag: [t.string, t.special(t.string)], color: "var(--syn-string)" },
  { tag: [t.comment], color: "var(--syn-comment)", fontStyle: "italic" },
  { tag: [t.number], color: "var(--syn-number)" },
  // Front matter is YAML: its keys read as names, not as Markdown.
  { tag: [t.propertyName, t.definition(t.propertyName)], color: "var(--syn-keyword)" },
];

const proseStyle = HighlightStyle.define([
  { tag: t.heading1, fontSize: "1.75em", fontWeight: "700", lineHeight: "1.3" },
  { tag: t.heading2, fontSize: "1.38em", fontWeight: "680" },
  { tag: t.heading3, fontSize: "1.16em", fontWeight: "650" },
  { tag: [t.heading4, t.heading5, t.heading6], fontWeight: "650" },
  ...common,
]);

const sourceStyle = HighlightStyle.define([
  { tag: t.heading, fontWeight: "700", color: "var(--syn-heading)" },
  ...common,
]);

const baseTheme = EditorView.theme({
  "&": { height: "100%", backgroundColor: "var(--bg)", color: "var(--text)" },
  "&.cm-focused": { outline: "none" },
  ".cm-scroller": { overflow: "auto", lineHeight: "1.7" },
  ".cm-content": { caretColor: "var(--accent)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--accent)", borderLeftWidth: "2px" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    { backgroundColor: "var(--selection) !important" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--faint)", border: "none" },
  ".cm-activeLineGutter": { backgroundColor: "transparent", color: "var(--text-2)" },
  ".cm-selectionMatch": { backgroundColor: "var(--accent-soft)" },
  ".cm-searchMatch": { backgroundColor: "var(--warning-soft)", outline: "1px solid var(--warning)" },
  ".cm-panels": { backgroundColor: "var(--bg-bar)", color: "var(--text)", borderColor: "var(--border)" },
  ".cm-panels-top": { borderBottom: "1px solid var(--border)" },
  ".cm-ySelectionInfo": { opacity: "1", fontFamily: "var(--font-ui)", fontWeight: "600", padding: "1px 5px" },
});

const proseTheme = EditorView.theme({
  ".cm-scroller": { fontFamily: "var(--font-doc)", fontSize: "16px" },
  ".cm-content": { maxWidth: "46rem", margin: "0 auto", padding: "40px 32px 45vh", width: "100%" },
  ".cm-line": { padding: "0" },
});

const sourceTheme = EditorView.theme({
  ".cm-scroller": { fontFamily: "var(--font-mono)", fontSize: "13.5px", lineHeight: "1.65" },
  ".cm-content": { padding: "20px 24px 45vh 8px" },
  ".cm-gutters": { paddingLeft: "12px" },
  ".cm-lineNumbers .cm-gutterElement": { padding: "0 12px 0 8px", minWidth: "40px" },
});

// The document's front matter (between its leading `---` lines) is parsed as YAML, the rest as
// Markdown: without this the closing `---` turns the last property into a setext heading.
const markdownWithFrontMatter = yamlFrontmatter({ content: new LanguageSupport(markdownLanguage) });

// The front matter folds to its first line (fold gutter, or Ctrl-Shift-[ on that line).
const frontMatterFolding = foldService.of((state, lineStart, lineEnd) => {
  if (lineStart !== 0) return null;
  const front = syntaxTree(state).topNode.getChild("Frontmatter");
  const dashes = front?.getChildren("DashLine") ?? [];
  if (dashes.length !== 2) return null; // not closed yet: nothing to fold
  const closing = state.doc.lineAt(dashes[1].from);
  return closing.from - 1 > lineEnd ? { from: lineEnd, to: closing.from - 1 } : null;
});

export function editorExtensions(live: LiveDocument, mode: "edit" | "source", extra: Extension[]): Extension[] {
  const undoManager = new Y.UndoManager(live.text);
  return [
    mode === "source" ? [lineNumbers(), highlightActiveLineGutter()] : [],
    highlightSpecialChars(),
    drawSelection(),
    dropCursor(),
    EditorState.allowMultipleSelections.of(true),
    indentOnInput(),
    bracketMatching(),
    rectangularSelection(),
    crosshairCursor(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    search({ top: true }),
    EditorView.lineWrapping,
    // The Markdown language alone: markdown() would also bundle HTML, CSS and JavaScript.
    markdownWithFrontMatter,
    frontMatterFolding,
    codeFolding(),
    foldGutter(),
    syntaxHighlighting(mode === "source" ? sourceStyle : proseStyle),
    keymap.of([...markdownKeymap, ...yUndoManagerKeymap, ...searchKeymap, ...foldKeymap, indentWithTab, ...defaultKeymap]),
    baseTheme,
    mode === "source" ? sourceTheme : proseTheme,
    yCollab(live.text, live.awareness, { undoManager }),
    agentFlash(),
    EditorView.contentAttributes.of({ "aria-label": mode === "source" ? "Markdown source" : "Document editor" }),
    ...extra,
  ];
}
