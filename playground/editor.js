// The rule file editor of the playground: CodeMirror 6 with YAML highlighting and the server's problems as lint
// marks. Bundled by build.sh into rulesdsl/serve/static/editor.js (global RulesEditor).
import { EditorView, basicSetup } from "codemirror";
import { yaml } from "@codemirror/lang-yaml";
import { setDiagnostics, lintGutter } from "@codemirror/lint";

// An editor in `parent` showing `text`; onChange(text) after every edit.
export function create(parent, text, onChange) {
  const view = new EditorView({
    doc: text,
    parent,
    extensions: [
      basicSetup,
      yaml(),
      lintGutter(),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChange(update.state.doc.toString());
      }),
    ],
  });
  return view;
}

export function getText(view) {
  return view.state.doc.toString();
}

export function setText(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

// Problems [{line, column, severity, message, hint}] (1-based, as validate reports them) as lint marks.
export function showProblems(view, problems) {
  const doc = view.state.doc;
  const diagnostics = problems.map((p) => {
    const line = doc.line(Math.min(Math.max(p.line || 1, 1), doc.lines));
    const from = Math.min(line.from + Math.max((p.column || 1) - 1, 0), line.to);
    const to = Math.min(from + 1, line.to);
    return {
      from,
      to: Math.max(to, from),
      severity: p.severity === "warning" ? "warning" : "error",
      message: p.message + (p.hint ? " (hint: " + p.hint + ")" : ""),
    };
  });
  view.dispatch(setDiagnostics(view.state, diagnostics));
}
