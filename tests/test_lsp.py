"""The language server (`rulesdsl lsp`): driven over stdio as an editor would, and its symbol index and
diagnostics conversion on their own."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("pygls")

from rulesdsl.errors import Location, Problem  # noqa: E402
from rulesdsl.loading import load_document  # noqa: E402
from rulesdsl.lsp.checks import check_buffer, column, diagnostic, diagnostics, units  # noqa: E402
from rulesdsl.lsp.index import EXCERPT, FileIndex, is_code, schema_description  # noqa: E402
from rulesdsl.lsp.rule_files import is_rule_file  # noqa: E402

WAIT = 30  # seconds an answer may take on a loaded machine before the test fails (never hangs)

GAME = """\
game: Little game
players: {count: 2}
board:
  grid: {columns: abc, rows: 3}
data:
  prices: [1, 2, 3]
let:
  top: "max(prices)"
vars:
  money: {per: player, init: 5}
functions:
  doubled:
    params: [n]
    description: twice n
    value: "n * 2"
moves:
  mark:
    params:
      c: cells
    when: "empty(c) and doubled(1) < top"
    do:
      - "place(piece('mark', owner=me), c)"
pieces:
  mark:
    attributes:
      owner: [0, 1]
flow:
  steps:
    play:
      moves: [mark]
      next: end_turn
end:
  - when: "size(occupied()) == size(cells)"
    winners: "[]"
"""


class Client:
    """A language client over the server's stdin and stdout: JSON-RPC with Content-Length framing."""

    def __init__(self, cwd: Path, argv: tuple = ("-m", "rulesdsl", "lsp"), env: dict | None = None):
        self.process = subprocess.Popen([sys.executable, *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.messages: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(stream.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        answer = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)
        assert "error" not in answer, answer
        return answer["result"]

    def wait(self, wanted, seconds: float = WAIT) -> dict:
        """The next message for which `wanted` is true (others are dropped); fails after `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                message = self.messages.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no answer from the language server within {seconds} s")
            if wanted(message):
                return message

    def diagnostics(self, uri: str, version: int | None = None) -> list[dict]:
        message = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri
                            and (version is None or m["params"].get("version") == version))
        return message["params"]["diagnostics"]

    def open(self, uri: str, text: str) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                              "text": text}})

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})

    def at(self, method: str, uri: str, line: int, character: int):
        return self.request(method, {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("lsp")


def session(client, folder):
    """Open a language-server session for `client` over `folder`, yield it, and close it as an editor does."""
    result = client.request("initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}})
    assert result["serverInfo"]["name"] == "rulesdsl"
    client.notify("initialized", {})
    yield client
    client.request("shutdown", None)
    client.notify("exit", None)
    assert client.process.wait(timeout=WAIT) == 0
    client.process.stderr.close()


@pytest.fixture(scope="module")
def client(folder):
    yield from session(Client(folder), folder)


def _validate_json(path: Path) -> list[dict]:
    run = subprocess.run([sys.executable, "-m", "rulesdsl", "validate", "--format", "json", "--play", "0", str(path)],
                         capture_output=True, text=True, timeout=120)
    return json.loads(run.stdout)["files"][0]["problems"]


def _position(text: str, line_text: str, word: str, offset: int = 0) -> tuple[int, int]:
    """0-based line and character (UTF-16) of `word` in the line of `text` that contains `line_text`."""
    lines = text.splitlines()
    line = next(i for i, t in enumerate(lines) if line_text in t)
    return line, units(lines[line][: lines[line].index(word) + offset], "utf-16")


# -- over stdio ---------------------------------------------------------------------------------------
def test_a_misspelt_name_is_a_diagnostic_where_validate_puts_it(client, folder):
    # a non-ASCII character before the error on the same line: columns are UTF-16 units, not bytes
    broken = GAME.replace('when: "empty(c) and doubled(1) < top"', 'when: "\'é😀\' != \'\' and dubled(1) < top"')
    path = folder / "broken.yaml"
    path.write_text(broken, encoding="utf-8")
    expected = _validate_json(path)
    assert [(p["code"], p["line"]) for p in expected] == [("unknown_function", 20)]
    client.open(path.as_uri(), broken)
    found = client.diagnostics(path.as_uri())
    assert len(found) == 1
    line_text = broken.splitlines()[19]
    # validate's column counts characters: 'é' is one, '😀' one; in UTF-16 the emoji is two units
    assert line_text[expected[0]["column"] - 1:].startswith("dubled")
    assert found[0]["range"]["start"] == {"line": 19, "character": expected[0]["column"]}  # one more unit
    assert found[0]["range"]["end"]["character"] == expected[0]["column"] + len("dubled")
    assert found[0]["code"] == "unknown_function" and found[0]["source"] == "rulesdsl" and found[0]["severity"] == 1
    assert found[0]["message"] == f"{expected[0]['message']}\nhint: {expected[0]['hint']}"
    assert "doubled" in expected[0]["hint"]

    client.change(path.as_uri(), GAME, 2)  # fixed in the buffer only: the file on disk is still broken
    assert client.diagnostics(path.as_uri(), 2) == []


def test_typing_is_debounced_and_only_the_last_text_is_reported(client, folder):
    uri = (folder / "typing.yaml").as_uri()
    client.open(uri, GAME)
    assert client.diagnostics(uri, 1) == []
    for version, name in enumerate(["d", "du", "dub", "dubl"], 2):  # quicker than the debounce
        client.change(uri, GAME.replace("doubled(1) < top", f"{name}(1) < top"), version)
    found = client.diagnostics(uri)
    assert [d["message"].split("\n")[0] for d in found] == ["unknown function 'dubl'"]
    client.change(uri, GAME, 6)
    assert client.diagnostics(uri, 6) == []


def test_a_warning_is_a_warning(client, folder):
    base = folder / "base.yaml"
    base.write_text(GAME, encoding="utf-8")
    overlay = "extends: base.yaml\nvars:\n  money: {per: player, init: 5}\n"  # sets what the base has
    path = folder / "same.yaml"
    path.write_text(overlay, encoding="utf-8")
    expected = _validate_json(path)
    assert [p["severity"] for p in expected] == ["warning", "warning"]  # per and init
    client.open(path.as_uri(), overlay)
    found = client.diagnostics(path.as_uri())
    assert [(d["severity"], d["code"], d["range"]["start"]["line"] + 1) for d in found] == \
        [(2, p["code"], p["line"]) for p in expected]


def test_a_problem_in_the_base_file_is_shown_on_the_first_line(client, folder):
    base = folder / "broken_base.yaml"
    base.write_text(GAME.replace('value: "n * 2"', 'value: "n * zz"'), encoding="utf-8")
    overlay = "extends: broken_base.yaml\ngame: Mine\n"
    uri = (folder / "over_broken.yaml").as_uri()
    client.open(uri, overlay)
    found = client.diagnostics(uri)
    assert len(found) == 1
    assert found[0]["range"]["start"] == {"line": 0, "character": 0}
    assert found[0]["message"].startswith(f"{base}:15:17: unknown name 'zz'")


def test_hover_on_a_builtin_and_on_the_files_own_names(client, folder):
    uri = (folder / "hover.yaml").as_uri()
    client.open(uri, GAME)
    client.diagnostics(uri, 1)
    line, character = _position(GAME, 'when: "empty(c)', "empty", 2)
    hover = client.at("textDocument/hover", uri, line, character)
    assert "empty(c)" in hover["contents"]["value"] and "built-in" in hover["contents"]["value"]
    line, character = _position(GAME, 'when: "empty(c)', "doubled")
    text = client.at("textDocument/hover", uri, line, character)["contents"]["value"]
    assert "doubled(n)" in text and "twice n" in text and "n * 2" in text and "*function*" in text
    line, character = _position(GAME, 'when: "empty(c)', "top")
    assert "max(prices)" in client.at("textDocument/hover", uri, line, character)["contents"]["value"]
    line, character = _position(GAME, "  grid:", "grid")  # a YAML key: the schema's description
    assert "rectangular grid" in client.at("textDocument/hover", uri, line, character)["contents"]["value"]
    line, character = _position(GAME, "  prices:", "[")
    assert client.at("textDocument/hover", uri, line, character) is None


def test_completion_inside_an_expression(client, folder):
    uri = (folder / "complete.yaml").as_uri()
    client.open(uri, GAME)
    client.diagnostics(uri, 1)
    line, character = _position(GAME, 'when: "empty(c)', "empty")
    items = client.at("textDocument/completion", uri, line, character)["items"]
    labels = {item["label"]: item for item in items}
    assert labels["doubled"]["detail"] == "doubled(n) (function)"
    assert labels["empty"]["kind"] == 3  # Function
    assert {"top", "prices", "money", "c", "and", "none"} <= set(labels)  # a let, data, a var, the move's param
    line, character = _position(GAME, "description: twice n", "twice")
    assert client.at("textDocument/completion", uri, line, character)["items"] == []  # not code

    broken = GAME.replace("game: Little game", "game: [Little game")  # YAML that does not load while typing
    client.change(uri, broken, 2)
    assert [d["code"] for d in client.diagnostics(uri, 2)] == ["yaml_syntax"]
    labels = {item["label"] for item in client.at("textDocument/completion", uri, line, character)["items"]}
    assert {"doubled", "empty", "top"} <= labels  # the names of the last text that loaded


def test_definition_of_a_function_call_and_into_the_base_file(client, folder):
    uri = (folder / "definition.yaml").as_uri()
    client.open(uri, GAME)
    client.diagnostics(uri, 1)
    line, character = _position(GAME, 'when: "empty(c)', "doubled", 3)
    found = client.at("textDocument/definition", uri, line, character)
    assert found == {"uri": uri, "range": {"start": {"line": 11, "character": 2}, "end": {"line": 11, "character": 9}}}
    line, character = _position(GAME, "moves: [mark]", "mark")
    assert client.at("textDocument/definition", uri, line, character)["range"]["start"] == {"line": 16, "character": 2}

    base = folder / "defbase.yaml"
    base.write_text(GAME, encoding="utf-8")
    overlay = 'extends: defbase.yaml\nlet:\n  top: "doubled(3)"\n'
    over_uri = (folder / "defover.yaml").as_uri()
    client.open(over_uri, overlay)
    client.diagnostics(over_uri, 1)
    found = client.at("textDocument/definition", over_uri, 2, 10)
    assert found["uri"] == base.resolve().as_uri() and found["range"]["start"] == {"line": 11, "character": 2}


def test_a_hostile_buffer_gives_a_diagnostic_not_a_hang(client, folder):
    bomb = (Path(__file__).parent / "fuzz_corpus" / "yaml_alias_bomb.yaml").read_text(encoding="utf-8")
    uri = (folder / "bomb.yaml").as_uri()
    client.open(uri, bomb)
    found = client.diagnostics(uri)
    assert [d["code"] for d in found] == ["limit_exceeded"]
    huge = GAME.replace('value: "n * 2"', 'value: "' + "+".join(["n"] * 200_000) + '"')
    uri = (folder / "huge.yaml").as_uri()
    client.open(uri, huge)
    assert [d["code"] for d in client.diagnostics(uri)] == ["limit_exceeded"]
    uri = (folder / "still_alive.yaml").as_uri()  # and the server still answers
    client.open(uri, GAME)
    assert client.diagnostics(uri, 1) == []


WORKFLOW = """\
name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: python -m pytest
"""


def test_a_yaml_file_that_is_not_a_rule_file_gets_no_diagnostics_hovers_or_names(client, folder):
    path = folder / "ci.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    assert _validate_json(path), "validate finds problems in it (unknown key 'on'...): the server must not say them"
    uri = path.as_uri()
    client.open(uri, WORKFLOW)
    assert client.diagnostics(uri, 1) == []
    assert client.at("textDocument/hover", uri, 0, 1) is None  # 'name', a key the rules schema describes
    assert client.at("textDocument/completion", uri, 6, 14)["items"] == []
    # a top-level game: makes it a rule file, checked as any other; and taking it away, silent again
    client.change(uri, "game: Mine\n" + WORKFLOW, 2)
    assert "schema_unknown_key" in {d["code"] for d in client.diagnostics(uri, 2)}
    assert client.at("textDocument/hover", uri, 0, 1) is not None
    client.change(uri, WORKFLOW, 3)
    assert client.diagnostics(uri, 3) == []
    assert client.at("textDocument/hover", uri, 0, 1) is None


@pytest.mark.parametrize("file, text, rules", [
    ("/w/.github/workflows/ci.yml", WORKFLOW, False),
    ("/w/compose.yaml", "services:\n  game:\n    image: x\n", False),  # a nested game: is not the rule file's
    ("/w/mine.yaml", "# notes\ngame: Mine\n", True),
    ("/w/mine.yaml", "extends: mark\noptions:\n  money: {default: 40}\n", True),
    ("/w/mine.yaml", "game:\n", True),
    ("/w/gamer.yaml", "gamer: 1\n", False),
    ("/w/mine.rules.yaml", "", True),
    ("/w/MINE.RULES.YML", "players: {count: 2}\n", True),
    ("/w/games/draft.yaml", "players: {count: 2}\n", True),
    ("/w/games/new/draft.yml", "", True),
    ("/w/my-games/draft.yaml", "players: {count: 2}\n", False),
    ("/w/draft.yaml", "# yaml-language-server: $schema=../schemas/rules.schema.json\nplayers: {count: 2}\n", True),
    ("/w/draft.yaml", "# yaml-language-server: $schema=https://example.org/s/rules.schema.json\n", True),
    ("/w/draft.yaml", "# yaml-language-server: $schema=..\\schemas\\rules.schema.json\n", True),
    # a modeline naming another schema wins over the name and the content
    ("/w/games/ci.yml", "# yaml-language-server: $schema=https://json.schemastore.org/github-workflow.json\n"
     "game: x\n", False),
    ("/w/draft.yaml", "# yaml-language-server: $schema=other-rules.schema.json.bak\ngame: x\n", False),
    ("untitled:Untitled-1", "game: x\n", True),
    ("file:///w/games/a.yaml", "", True),
])
def test_which_yaml_files_are_rule_files(file, text, rules):
    assert is_rule_file(file, text) is rules


def test_deciding_reads_a_huge_buffer_once(tmp_path):
    start = time.process_time()
    assert not is_rule_file("/w/big.yaml", "key: value\n" * 500_000 + "  game: x\n" + "#" * 1_000_000 + "\n"
                            + "# " + " \t" * 500_000 + "\n" + "\t" * 1_000_000)
    assert time.process_time() - start < 5  # linear in the text: a tenth of a second, even on a busy machine


@pytest.mark.parametrize("name", ["expr_deep_parens", "expr_long_sum_chain", "grid_huge"])
def test_hostile_files_of_the_fuzz_corpus_get_validates_problems(client, folder, name):
    source = Path(__file__).parent / "fuzz_corpus" / f"{name}.yaml"
    path = folder / source.name
    path.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    expected = _validate_json(path)
    client.open(path.as_uri(), path.read_text(encoding="utf-8"))
    found = client.diagnostics(path.as_uri())
    assert [(d["code"], d["range"]["start"]["line"] + 1) for d in found] == \
        [(p["code"], p["line"]) for p in expected]


def test_without_pygls_the_command_says_how_to_install_it(tmp_path):
    blocker = tmp_path / "pygls.py"
    blocker.write_text("raise ImportError('not installed')\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "rulesdsl", "lsp"], capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.strip() == "error: the language server needs pygls: pip install 'rulesdsl[lsp]'"


# -- the parts -------------------------------------------------------------------------------------------
def test_utf16_units_and_back():
    assert units("a😀é", "utf-16") == 4 and units("a😀é", "utf-8") == 7 and units("a😀é", "utf-32") == 3
    assert column("a😀é", 3, "utf-16") == 2 and column("a😀é", 5, "utf-8") == 2 and column("ab", 9, "utf-16") == 2


@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=20), st.data(),
       st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_a_character_index_survives_the_round_trip_through_code_units(text, data, encoding):
    index = data.draw(st.integers(0, len(text)))
    assert column(text, units(text[:index], encoding), encoding) == index
    # Python's own encoders are the reference for the unit counts
    width = {"utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding]
    assert units(text, encoding) * width == len(text.encode(encoding.replace("-", "_") + ("-le" if width > 1 else "")))


def test_diagnostic_ranges():
    lines = ["x: 1", "  when: '😀 + q'"]
    problem = Problem("unknown name 'q'", Location("f.yaml", 2, 14), "h", lines[1], 1, code="unknown_name")
    found = diagnostic(problem, "f.yaml", lines)
    assert found["range"] == {"start": {"line": 1, "character": 14}, "end": {"line": 1, "character": 15}}
    elsewhere = Problem("bad", Location("base.yaml", 7, 3), severity="warning")
    assert diagnostic(elsewhere, "f.yaml", lines) == {
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 4}}, "severity": 2,
        "code": "invalid", "source": "rulesdsl", "message": "base.yaml:7:3: bad"}
    at_end = Problem("ends early", Location("f.yaml", 1, 5), width=1)  # just after the line's last character
    assert diagnostic(at_end, "f.yaml", lines)["range"] == {"start": {"line": 0, "character": 3},
                                                            "end": {"line": 0, "character": 4}}
    assert [d["range"]["start"]["line"] for d in diagnostics([problem, at_end], "f.yaml", "\n".join(lines))] == [0, 1]


def test_check_buffer_reports_what_validate_does(tmp_path):
    path = tmp_path / "g.yaml"
    problems, doc, _ = check_buffer(str(path), GAME.replace("doubled(1)", "doubled(1, 2)"))
    assert [(p.code, p.location.line) for p in problems] == [("wrong_arity", 20)]
    assert doc is not None and doc.data["game"] == "Little game"  # still indexed
    problems, doc, _ = check_buffer(str(path), "game: [unclosed\n")
    assert [p.code for p in problems] == ["yaml_syntax"] and doc is None


def test_index_names_definitions_and_scopes(tmp_path):
    index = FileIndex(load_document(tmp_path / "g.yaml", text=GAME))
    file = str(tmp_path / "g.yaml")
    assert {n: s.kind for n, s in index.symbols.items()} == {
        "doubled": "function", "top": "let", "prices": "data", "money": "variable", "mark": "move", "play": "step"}
    assert index.symbols["doubled"].location == Location(file, 12, 3)
    assert index.symbols["doubled"].signature == "doubled(n)"
    when = ("moves", "mark", "when")
    assert [(s.name, s.kind) for s in index.locals_at(when)] == [("c", "parameter")]
    assert [(s.name, s.kind) for s in index.locals_at(("end", 0, "when"))] == []
    assert [(s.name, s.kind) for s in index.locals_at(("functions", "doubled", "value"))] == [("n", "parameter")]
    # the cursor on 'doubled' in line 20 (1-based columns): the name, and just after it
    line = GAME.splitlines()[19]
    col = line.index("doubled") + 1
    assert index.symbol_at(file, 20, col).kind == "function"
    assert index.symbol_at(file, 20, col + len("doubled")).name == "doubled"
    assert index.symbol_at(file, 20, line.index("empty") + 1).kind == "built-in"
    assert index.symbol_at(file, 12, 3).name == "doubled"  # the key that declares it


def test_index_loop_variables_and_fields(tmp_path):
    text = GAME.replace('      - "place(piece(\'mark\', owner=me), c)"',
                        '      - for: "d in neighbours(c)"\n        do: ["x = [e.owner for e in cells]"]')
    index = FileIndex(load_document(tmp_path / "g.yaml", text=text))
    path = ("moves", "mark", "do", 0, "do", 0)
    assert [(s.name, s.kind) for s in index.locals_at(path)] == [("c", "parameter"), ("d", "loop variable"),
                                                                 ("e", "loop variable")]
    file = str(tmp_path / "g.yaml")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "e.owner" in t)
    col = text.splitlines()[line - 1].index("owner") + 1
    assert index.symbol_at(file, line, col) is None  # a field, not a name


def test_schema_says_which_strings_are_code():
    assert is_code(("moves", "mark", "when"))
    assert is_code(("moves", "mark", "do", 0))
    assert is_code(("moves", "mark", "do", 0, "then", 1))
    assert is_code(("functions", "f", "value"))
    assert not is_code(("functions", "f", "description"))
    assert not is_code(("moves", "mark", "when", 0, "why"))
    assert not is_code(("game",))
    assert schema_description(("functions", "f", "value")) == "The expression computed."


def test_a_check_that_overruns_its_budget_is_one_problem(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_TIME_SCALE", "0.001")  # 40 ms to check a file: reading 20,000 values takes longer
    text = "game: Big\ndata:\n  big:\n" + "    - 1\n" * 20_000
    problems, doc, _ = check_buffer(str(tmp_path / "big.yaml"), text)
    assert doc is None
    assert [(p.code, p.message, p.location.line) for p in problems] == [
        ("limit_exceeded", "checking this file stopped: checking the rule file took longer than the 0.04 s allowed", 1)]


def test_a_failure_inside_rulesdsl_is_one_problem(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("oops")
    monkeypatch.setattr("rulesdsl.lsp.checks.check_file", broken)
    problems, doc, _ = check_buffer(str(tmp_path / "g.yaml"), GAME)
    assert doc is None
    assert [(p.code, p.message) for p in problems] == [
        ("internal", "internal error while checking this file (KeyError: 'oops')")]
    assert diagnostics(problems, str(tmp_path / "g.yaml"), GAME)[0]["range"]["start"] == {"line": 0, "character": 0}


def test_options_are_named_after_option_dot(tmp_path):
    text = GAME.replace("board:\n", "options:\n  rounds: {type: int, default: 3, help: how many rounds}\nboard:\n", 1)
    text = text.replace('winners: "[]"', 'winners: "[] if turn > option.rounds else []"')
    index = FileIndex(load_document(tmp_path / "g.yaml", text=text))
    file = str(tmp_path / "g.yaml")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "option.rounds" in t)
    col = text.splitlines()[line - 1].index("rounds") + 1
    option = index.symbol_at(file, line, col)
    assert (option.kind, option.signature, option.description, option.location.line) == \
        ("option", "option.rounds", "how many rounds", 4)
    assert [s.name for s in index.completions(("end", 0, "winners"), "turn > option.ro")] == ["rounds"]
    assert index.completions(("end", 0, "winners"), "at(c).") == []  # a field: it depends on the value
    everything = {s.name: s.kind for s in index.completions(("end", 0, "winners"), "turn > ")}
    assert everything["doubled"] == "function" and everything["and"] == "keyword" and "rounds" not in everything


def test_a_shared_file_cannot_format_its_hovers(tmp_path):
    text = GAME.replace("description: twice n", 'description: "[run](command:x) **bold**"')
    text = text.replace('value: "n * 2"', 'value: "n * 2 if \'```\' else n"')
    hover = FileIndex(load_document(tmp_path / "g.yaml", text=text)).symbols["doubled"].hover()
    assert "\\[run\\]\\(command:x\\) \\*\\*bold\\*\\*" in hover  # shown as written, not as a link
    assert "````yaml\nn * 2 if '```' else n\n````" in hover  # the code block outlasts the backticks inside it


def test_an_excerpt_writes_out_only_its_start(tmp_path):
    # through aliases, a file of 160 kB holds 600 MB of text: neither the index nor a local's hover writes it out
    copies = "[" + ", ".join(["*long"] * 2000) + "]"
    text = GAME.replace("  prices: [1, 2, 3]\n", f'  prices: [1, 2, 3]\n  long: &long "{"x" * 150_000}"\n'
                        f"  copies: {copies}\n")
    text = text.replace("    when: ", f"    let:\n      many: {copies}\n    when: ", 1)
    doc = load_document(tmp_path / "g.yaml", text=text)
    tracemalloc.start()
    try:
        index = FileIndex(doc)
        local = next(s for s in index.locals_at(("moves", "mark", "when")) if s.name == "many")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 << 20
    assert index.symbols["copies"].definition == local.definition == '["' + "x" * (EXCERPT - 5) + "..."
