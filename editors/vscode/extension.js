// Starts `rulesdsl lsp` for the YAML files of the workspace. The server decides which of them are rule files
// (a modeline naming rules.schema.json, a name ending in .rules.yaml, a games/ folder, a top-level game: or
// extends:) and stays silent on any other YAML file, such as a CI workflow.
const path = require('path');
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  // the server's arguments and the documents it is given are in package.json, where the tests read them
  const manifest = context.extension.packageJSON.languageServer;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  let command = vscode.workspace.getConfiguration('rulesdsl').get('command') || 'rulesdsl';
  if (folder && command.includes('/') && !path.isAbsolute(command)) {
    command = path.join(folder, command); // e.g. .venv/bin/rulesdsl, from the workspace folder
  }
  const server = { command, args: manifest.args, options: folder ? { cwd: folder } : {} };
  client = new LanguageClient('rulesdsl', 'rulesdsl', { run: server, debug: server },
                              { documentSelector: manifest.documentSelector });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
