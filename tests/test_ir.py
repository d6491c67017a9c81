"""The typed rules IR: every bundled game and example lowers whole, with every name resolved to its declaration and
to the compiler binding its Python is printed from."""

from pathlib import Path

import pytest

import rulesdsl
from rulesdsl.ir import nodes as N
from rulesdsl.ir.naming import spec_at
from rulesdsl.lang import types as T

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "games").glob("*.yaml")) + sorted((ROOT / "examples").glob("*/*.yaml"))


@pytest.fixture(scope="module", params=FILES, ids=lambda p: p.stem)
def game(request):
    return rulesdsl.load_game(request.param)


def test_every_name_is_resolved_to_what_declares_it(game):
    ir, data = game.rules.ir, game.rules.ir_data
    refs = [n for n in ir.nodes() if isinstance(n, N.Ref)]
    assert refs
    assert not [r.name for r in refs if r.kind == "unknown"]
    assert not [r.name for r in refs if r.binding is None or r.binding.kind == "unknown"]
    for ref in refs:
        if ref.decl is not None:  # the key that declares it is in the file
            assert spec_at(data, ref.decl[:-1]) is not None, (ref.name, ref.decl)
            assert ref.decl[-1] in spec_at(data, ref.decl[:-1]) or isinstance(ref.decl[-1], int)
        if ref.kind == "loop":  # bound inside a string: where it is written
            path, start, end = ref.decl_at
            assert spec_at(data, path) is not None
            text = spec_at(data, path)
            if isinstance(text, str) and end > start:
                assert ref.name in text


def test_every_node_is_placed_in_the_string_it_was_written_in(game):
    ir, data = game.rules.ir, game.rules.ir_data
    for path, found in ir.exprs.items():
        text = spec_at(data, path)
        for node in found:
            for sub in N.walk(node):
                where, start, end = sub.at
                if isinstance(sub, (N.Ref, N.Const)) and isinstance(text, str) and where == path and end > start:
                    written = text[start:end]
                    if isinstance(sub, N.Ref):
                        assert written == sub.name, (path, written, sub.name)


def test_a_move_plan_holds_its_params_checks_notation_and_effects():
    ir = rulesdsl.load_game("mabula").rules.ir
    push = ir.moves["push"]
    assert [(p.name, p.type) for p in push.params] == [("from", T.CELL), ("to", T.CELL)]
    assert push.params[0].why.startswith("only your own marbles")
    assert isinstance(push.params[1].domain, N.Call) and push.params[1].domain.func == "push_targets"
    [check] = push.checks
    assert isinstance(check.test, N.Logic) and check.why
    assert [type(p).__name__ if not isinstance(p, str) else p for p in push.notation] == ["Ref", "-", "Ref"]
    assert all(isinstance(s, (N.Do, N.Assign, N.If, N.Loop)) for s in push.effects) and push.effects


def test_the_flow_machine_has_every_step_and_its_ways_on():
    ir = rulesdsl.load_game("mark").rules.ir
    data = rulesdsl.load_game("mark").rules.ir_data
    assert set(ir.steps) == set(data["flow"]["steps"])
    roll = ir.steps["roll"]
    assert roll.kind == "chance" and roll.chance.kind == "outcomes"
    assert [p.name for p in roll.chance.outcomes.params] == ["a", "b"]
    assert [b.to for b in roll.next][:2] == ["name_lot", "auction"]
    assert isinstance(roll.next[0].test, N.Logic)


def test_a_function_knows_its_params_and_lets():
    ir = rulesdsl.load_game("fast-track").rules.ir
    priority = ir.functions["priority"]
    assert priority.params == ["p"] and [l.name for l in priority.lets] == ["on_fast_track", "fewest"]
    comp = priority.value
    assert isinstance(comp, N.Comp)
    [clause] = comp.clauses
    assert isinstance(clause.iterable, N.Ref) and clause.iterable.kind == "let"
    assert clause.iterable.decl == ("functions", "priority", "let", "on_fast_track")
    [x] = clause.targets
    calls = [n for n in N.walk(comp.elt)] + [n for c in clause.conds for n in N.walk(c)]
    reads_x = [n for n in calls if isinstance(n, N.Ref) and n.name == "x"]
    assert reads_x and all(r.kind == "loop" and r.decl_at == x.decl_at for r in reads_x)
    hops = [n for n in calls if isinstance(n, N.Call) and n.func == "hops"]
    assert hops and hops[0].target == "function" and hops[0].decl == ("functions", "hops")


def test_effects_keep_their_structure_and_loop_names():
    ir = rulesdsl.load_game("marble-chase").rules.ir
    loops = [n for step in ir.steps.values() for stmts in step.effects.values() for s in stmts for n in N.walk(s)
             if isinstance(n, N.Loop)]
    assert loops
    for loop in loops:
        names = {t.name for t in loop.clause.targets}
        inner = [n for s in loop.body for n in N.walk(s) if isinstance(n, N.Ref) and n.name in names]
        assert all(r.kind == "loop" for r in inner)


def test_every_value_of_a_bundled_game_has_a_type_known_at_load(game):
    # (what a compiled backend needs: a value of unknown type could only be held as a Python object)
    ir = game.rules.ir
    statements = (N.Assign, N.Do, N.If, N.Loop, N.Clause)
    untyped = [n for n in ir.nodes() if not isinstance(n, statements) and n.type == T.ANY]
    assert not untyped, [(type(n).__name__, getattr(n, "name", ""), n.at) for n in untyped[:5]]


def test_a_long_run_of_operators_in_a_rule_lowers_without_recursion(write):
    text = (ROOT / "tests" / "fuzz_corpus" / "expr_long_sum_chain.yaml").read_text(encoding="utf-8")
    # the file's own 5,000-term let, worked out at load, takes most of a let's budget: a short one here
    lines = ['  probe: "1"' if line.startswith("  probe: ") else line for line in text.splitlines()]
    run = " + ".join(["1"] * 3000)
    path = write("\n".join(lines).replace('  score: "', f'  score: "{run} + ', 1))
    score = rulesdsl.load_game(path).rules.ir.scoring["score"]
    depth = 0
    while isinstance(score, N.Binary):
        score, depth = score.left, depth + 1
    assert depth >= 3000


def test_one_check_written_alone_is_a_check():
    ir = rulesdsl.load_game("fast-track").rules.ir
    [first, second] = ir.moves["split"].parts
    [check] = second.checks
    assert isinstance(check.test, N.Compare) and check.decl == ("moves", "split", "parts", 1, "when")
    assert (second.move, [(g.name, type(g.value).__name__) for g in second.given]) == ("split_part", [("steps", "Binary")])
    assert first.checks == []


def test_names_the_effects_assign_are_theirs_from_where_first_assigned():
    ir = rulesdsl.load_game("mark").rules.ir
    squares = [n for n in ir.nodes() if isinstance(n, N.Ref) and n.name == "square"]
    assert len(squares) > 1
    assert all(r.kind == "temp" and r.decl_at == (("moves", "sell", "do", 0), 0, 6) for r in squares)
    assert len({id(r.binding) for r in squares}) == 1  # one name of the effects: one binding, read where assigned


LOOPS = """
game: loops
players: {count: 2}
board: {cells: [a, b, c]}
vars:
  total: 0
moves:
  add:
    params: {n: {in: "[1, 2, 3]"}}
    do:
      - for: "k in [1, 2, 3] if k != n"
        do: ["total += k"]
      - "total += sum(k * 2 for k in [n] if k > 0)"
flow:
  steps:
    play: {moves: [add], next: play}
end:
  - when: "total > 9"
    winners: "[]"
"""


def test_a_loop_reads_its_names_as_its_own_in_its_conditions_and_body(tmp_path):
    (tmp_path / "loops.yaml").write_text(LOOPS, encoding="utf-8")
    ir = rulesdsl.load_game(tmp_path / "loops.yaml").rules.ir
    loop, total = ir.moves["add"].effects
    [target] = loop.clause.targets
    [cond] = loop.clause.conds
    assert isinstance(loop, N.Loop) and cond.operands[0].kind == "loop" and cond.operands[0].binding is target.binding
    [body] = loop.body
    assert body.value.kind == "loop" and body.value.binding is target.binding
    assert cond.operands[1].kind == "param"  # the move's n, around the loop
    [comp] = total.value.args
    [inner] = comp.clauses
    assert inner.targets[0].binding is not target.binding  # a comprehension's k: a name of its own
    assert all(r.binding is inner.targets[0].binding for r in N.walk(comp) if isinstance(r, N.Ref) and r.name == "k")
