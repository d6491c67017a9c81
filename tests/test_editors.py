"""The editor set-up docs/editors.md describes: the VS Code extension in editors/vscode/, its manifest and how it
starts the language server (run under Node.js with stand-ins for VS Code's modules; no Node package is installed)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from .helpers import ROOT

EXTENSION = ROOT / "editors" / "vscode"
MANIFEST = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
EDITORS = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")


def _described() -> tuple[list, list]:
    """The server's arguments and the document selector, as docs/editors.md writes them."""
    found = re.search(r"the arguments `(\[.*?\])` and the\s+documents `(\[.*?\])`", EDITORS, re.S)
    assert found, "docs/editors.md no longer says which arguments and documents the extension gives the server"
    return json.loads(found.group(1)), json.loads(found.group(2))


def test_the_manifest_names_the_server_and_the_documents_the_docs_describe():
    args, selector = _described()
    assert MANIFEST["languageServer"] == {"args": args, "documentSelector": selector}
    assert args == ["lsp"] and selector == [{"scheme": "file", "language": "yaml"}]
    setting = MANIFEST["contributes"]["configuration"]["properties"]["rulesdsl.command"]
    assert setting["default"] == "rulesdsl" and "`rulesdsl.command`" in EDITORS
    assert MANIFEST["activationEvents"] == ["onLanguage:yaml"] and "onLanguage:yaml" in EDITORS
    assert (EXTENSION / MANIFEST["main"]).is_file()
    assert "vscode-languageclient" in MANIFEST["dependencies"]
    assert (EXTENSION / "README.md").is_file()


STANDINS = {
    "vscode/index.js": """
exports.workspace = {
  workspaceFolders: [{ uri: { fsPath: '/work/space' } }],
  getConfiguration: (section) => ({ get: (key) => process.env.COMMAND_SETTING }),
};
""",
    "vscode-languageclient/node.js": """
exports.LanguageClient = class {
  constructor(id, name, server, client) { console.log(JSON.stringify({ id, name, server, client })); }
  start() { return Promise.resolve(); }
  stop() { return Promise.resolve(); }
};
""",
}


@pytest.mark.parametrize("setting, command", [("", "rulesdsl"), (".venv/bin/rulesdsl", "/work/space/.venv/bin/rulesdsl"),
                                              ("/opt/bin/rulesdsl", "/opt/bin/rulesdsl")])
def test_the_extension_starts_the_server_the_manifest_names(tmp_path, setting, command):
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    shutil.copy(EXTENSION / "extension.js", tmp_path / "extension.js")
    for name, text in STANDINS.items():
        (tmp_path / "node_modules" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "node_modules" / name).write_text(text, encoding="utf-8")
    script = ("require('./extension.js').activate({ extension: { packageJSON: "
              + json.dumps(MANIFEST) + " } }).then(() => 0);")
    done = subprocess.run([node, "-e", script], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"COMMAND_SETTING": setting, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    started = json.loads(done.stdout)
    server = {"command": command, "args": ["lsp"], "options": {"cwd": "/work/space"}}
    assert started["server"] == {"run": server, "debug": server}
    assert started["client"] == {"documentSelector": MANIFEST["languageServer"]["documentSelector"]}
