#!/bin/sh
# Build the playground's editor bundle (CodeMirror 6) into the Python package, where it is committed: a plain
# `pip install` then works offline, with no Node. Run after changing editor.js or the versions in package.json.
set -e
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npx esbuild editor.js --bundle --minify --format=iife --global-name=RulesEditor \
  --outfile=../rulesdsl/serve/static/editor.js
