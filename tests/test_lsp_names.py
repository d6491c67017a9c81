"""The language server's names from the typed IR: every name in a rule resolves to what declares it."""

from pathlib import Path

import pytest

from rulesdsl.engine.load import compile_game
from rulesdsl.ir.occurrences import occurrences
from rulesdsl.loading import load_document
from rulesdsl.lsp.index import FileIndex

GAMES = Path(__file__).resolve().parent.parent / "games"


def _index(game: str):
    file = str(GAMES / f"{game}.yaml")
    doc = load_document(file)
    names = occurrences(compile_game(doc, file).rules.ir)
    return file, doc, FileIndex(doc, names), names


def _asked(game: str, rule: tuple):
    """(occurrence, what the index says is at its place) for every name written in `rule`."""
    file, doc, index, names = _index(game)
    found = [n for n in names if n.path[:len(rule)] == rule]
    assert found
    for name in found:
        where = doc.locate(name.path, name.start)[0]
        yield doc, name, index.symbol_at(file, where.line, where.col)


@pytest.mark.parametrize("game, rule", [
    ("mabula", ("moves", "push")),
    ("mark", ("moves", "sell")),
    ("fast-track", ("functions", "priority")),
    ("fast-track", ("moves", "split")),
    ("marble-chase", ("flow", "steps", "roll")),
])
def test_every_name_in_a_rule_resolves_to_what_declares_it(game, rule):
    for doc, name, symbol in _asked(game, rule):
        assert symbol is not None and symbol.name == name.name, name
        if name.decl is not None:  # declared by a key of the file: go-to-definition goes there
            assert symbol.location == doc.locate(name.decl, key=True)[0], name
        elif name.decl_at is not None:  # bound inside a string (a loop's name): where it is written
            path, start, _ = name.decl_at
            assert symbol.location == doc.locate(path, start)[0], name
        else:  # the engine's own (me, cells, a built-in function)
            assert symbol.location is None and "built-in" in symbol.kind, (name, symbol)


def _meaning(game: str, rule: tuple) -> dict:
    return {name.name: (symbol.kind, name.decl or name.decl_at) for _, name, symbol in _asked(game, rule)}


def test_the_push_move_s_names():
    meaning = _meaning("mabula", ("moves", "push"))
    assert meaning["from"] == ("parameter", ("moves", "push", "params", "from"))
    assert meaning["to"] == ("parameter", ("moves", "push", "params", "to"))
    assert meaning["ring"] == ("region", ("board", "regions", "ring"))
    assert meaning["field"] == ("region", ("board", "regions", "field"))
    assert meaning["me"][0] == "built-in name" and meaning["push_targets"][0] == "built-in"


def test_the_sell_move_s_names():
    meaning = _meaning("mark", ("moves", "sell"))
    assert meaning["colour"] == ("parameter", ("moves", "sell", "params", "colour"))
    assert meaning["source"] == ("parameter", ("moves", "sell", "params", "source"))
    assert meaning["money"] == ("variable", ("vars", "money"))
    assert meaning["rolled_colours"] == ("function", ("functions", "rolled_colours"))
    assert meaning["square"][0] == "local"


def test_a_function_s_names_and_their_types():
    _, doc, index, names = _index("fast-track")
    meaning = _meaning("fast-track", ("functions", "priority"))
    assert meaning["p"] == ("parameter", ("functions", "priority", "params", 0))
    assert meaning["on_fast_track"] == ("local", ("functions", "priority", "let", "on_fast_track"))
    assert meaning["hops"] == ("function", ("functions", "hops"))
    assert meaning["x"][0] == "loop variable" and meaning["x"][1][0] == ("functions", "priority", "value")
    [x] = {n for n in names if n.path == ("functions", "priority", "value") and n.name == "x"} and \
        [n for n in names if n.path == ("functions", "priority", "value") and n.name == "x"][:1]
    assert x.type == "a cell"  # hover shows what the name holds


def test_completion_offers_the_names_of_a_chance_step_s_outcomes():
    file, doc, index, _ = _index("mark")
    offered = {s.name: s for s in index.completions(("flow", "steps", "roll", "chance", "outcomes", "do", 0))}
    assert offered["a"].kind == "parameter" and offered["b"].kind == "parameter"
    assert offered["a"].location == doc.locate(("flow", "steps", "roll", "chance", "outcomes", "params", "a"),
                                               key=True)[0]
