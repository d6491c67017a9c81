"""A long fuzzing campaign over rule files, overlays and expressions (the operators of tests/fuzzing.py drawn by
a seeded Random), with every distinct finding minimised and saved as a reproducer.

    python tests/fuzz_campaign.py --cases 10000 --seed 1 [--jobs 2] [--out /tmp/fuzz_repro]
    python tests/fuzz_campaign.py --cases 0 --compiled 100 --seed 1   # the compiled backend against Python
    python tests/fuzz_campaign.py --replay /tmp/fuzz_repro tests/fuzz_corpus   # re-run reproducers after a fix

Case i of a run depends only on --seed and i, so any case can be rebuilt with --only i (--only-compiled i for
the compiled phase). The compiled phase mutates games the compiled backend takes (their expressions, numbers and
lists), loads each on both backends, and requires a located error or the same games move for move; numba
compiles each game in 5 to 25 s, so it runs far fewer cases.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import fuzzing as F  # noqa: E402


def build(seed: int, index: int) -> F.Case:
    """Case `index` of the campaign with this seed."""
    case = F.random_case(random.Random(f"{seed}:{index}"))
    case.label = f"#{index} {case.label}"
    return case


def build_compiled(seed: int, index: int) -> F.Case:
    """Case `index` of the compiled phase of the campaign with this seed."""
    case = F.compiled_case(random.Random(f"{seed}:compiled:{index}"))
    case.label = f"#c{index} {case.label}"
    return case


def _all_cases(args, unbuilt: list):
    """The cases of the run: the main phase's, then the compiled phase's. A case the harness fails to build is
    said, and listed in `unbuilt`, and the run goes on."""
    main = args.only if args.only is not None else [] if args.only_compiled is not None else range(args.cases)
    numbered = [(build, i, f"#{i}") for i in main]
    compiled = args.only_compiled if args.only_compiled is not None else range(args.compiled)
    numbered += [(build_compiled, i, f"#c{i}") for i in compiled]
    for make, i, label in numbered:
        try:
            yield make(args.seed, i)
        except Exception as exc:  # noqa: BLE001 - a bug of the harness: the other cases still run
            unbuilt.append(f"{label}: {type(exc).__name__}: {exc}"[:300])
            print(f"harness: case {label} could not be built: {unbuilt[-1]}", file=sys.stderr, flush=True)


def campaign(args) -> tuple[Counter, dict]:
    """Run the cases; count outcomes by bucket and keep the smallest case of each finding."""
    counts, found = Counter(), {}
    cases = _all_cases(args, args.unbuilt)
    start, done = time.monotonic(), 0
    for case, outcome in F.run_many(cases, args.jobs, args.timeout):
        done += 1
        counts[outcome.bucket()] += 1
        if outcome.is_finding:
            key = outcome.bucket()
            if key not in found:  # said at once: a long run's findings can be looked into while it goes on
                print(f"finding: {key} in case {case.label[:120]}", file=sys.stderr, flush=True)
            if key not in found or _size(case) < _size(found[key][0]):
                found[key] = (case, outcome)
        if done % args.every == 0:
            _progress(done, counts, time.monotonic() - start)
    _progress(done, counts, time.monotonic() - start)
    return counts, found


def _size(case: F.Case) -> int:
    """Total bytes of a case's files."""
    return sum(len(d) for d in case.files.values())


def _progress(done: int, counts: Counter, seconds: float) -> None:
    """One status line on stderr."""
    findings = sum(n for k, n in counts.items() if k.startswith(("finding", "timeout")))
    print(f"{done} cases in {seconds:.0f} s: ok {counts['ok']}, located {counts['located']}, "
          f"runtime {counts['runtime']}, findings {findings} ({sum(1 for k in counts if ':' in k)} kinds)",
          file=sys.stderr, flush=True)


# -- minimising ---------------------------------------------------------------------------------------------

def minimise(case: F.Case, bucket: str, worker: F.Worker, timeout: float, budget: float) -> F.Case:
    """Delta-debug the main file's lines while the case still ends in the same bucket."""
    lines = case.files[case.main].split(b"\n")
    deadline = time.monotonic() + budget

    def same(trial) -> bool:
        """True when the case with these lines of its main file still fails the same way."""
        files = dict(case.files, **{case.main: b"\n".join(trial)})
        probe = F.Case(files, case.main, case.label, case.seed, case.must_reject, case.marker, case.backend)
        return _same_failure(worker.run(probe, timeout).bucket(), bucket)

    parts = 2
    while len(lines) >= 2 and time.monotonic() < deadline:
        chunk = -(-len(lines) // parts)
        for start in range(0, len(lines), chunk):
            trial = lines[:start] + lines[start + chunk:]
            if time.monotonic() < deadline and same(trial):
                lines, parts = trial, max(parts - 1, 2)
                break
        else:
            if parts >= len(lines):
                break
            parts = min(len(lines), parts * 2)
    files = dict(case.files, **{case.main: b"\n".join(lines)})
    return F.Case(files, case.main, case.label, case.seed, case.must_reject, case.marker, case.backend)


def _same_failure(bucket: str, wanted: str) -> bool:
    """Same bucket; for hangs, the same phase is enough (a hung stack is caught wherever it happens to be)."""
    if wanted.startswith("timeout: hang in "):
        return bucket.split(" at ")[0] == wanted.split(" at ")[0]
    return bucket == wanted


def save(found: dict, out: Path, args) -> list:
    """Minimise each finding's case and save it in its own folder with a note; returns summary rows."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("[0-9][0-9]-*"):  # the reproducers of an earlier run
        shutil.rmtree(old, ignore_errors=True)
    worker, rows = F.Worker(), []
    try:
        for n, (bucket, (case, outcome)) in enumerate(sorted(found.items()), 1):
            if args.minimise_seconds > 0:
                case = minimise(case, bucket, worker, args.timeout, args.minimise_seconds)
                outcome = worker.run(case, args.timeout)
            folder = out / f"{n:02d}-{_slug(bucket)}"
            shutil.rmtree(folder, ignore_errors=True)
            main = case.save(folder, outcome)
            rows.append({"bucket": bucket, "folder": str(folder), "main": str(main), "bytes": _size(case),
                         "reproduced_as": outcome.bucket(), "detail": outcome.detail[-1500:]})
            print(f"saved {folder} ({_size(case)} bytes; now {outcome.bucket()})", file=sys.stderr)
    finally:
        worker.close()
    return rows


def _slug(text: str) -> str:
    """A short file-name-safe version of a bucket."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text.split(": ", 1)[-1]).strip("-")[:60]


# -- replaying ----------------------------------------------------------------------------------------------

def replay(paths, timeout: float) -> int:
    """Re-run saved reproducer folders, corpus files or folders of either; exit status 1 when any still fails."""
    cases = [case for path in map(Path, paths) for case in _cases_at(path)]
    failed = 0
    worker = F.Worker()
    try:
        for case in cases:
            outcome = worker.run(case, timeout)
            failed += outcome.is_finding
            print(f"{outcome.bucket()[:100]:<100} {case.label}", flush=True)
    finally:
        worker.close()
    return 1 if failed else 0


def _cases_at(path: Path) -> list:
    """The cases a path holds: a reproducer folder, a corpus file or folder, or a folder of those."""
    if path.is_file():
        return [F.case_from_path(path)]
    if (path / "finding.txt").exists():
        return [F.Case.load(path)]
    if _is_corpus_folder(path):
        return [F.case_from_path(path)]
    return [case for child in sorted(path.iterdir()) if child.is_dir() or child.suffix == ".yaml"
            for case in _cases_at(child)]


def _is_corpus_folder(path: Path) -> bool:
    """A folder that is one corpus case: a main.yaml inside, no rule files at its top, no saved reproducers."""
    return any(path.rglob("main.yaml")) and not any(path.glob("*.yaml")) and not any(path.rglob("finding.txt"))


# -- command line -------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    """Run a campaign (or replay reproducers); exit status 1 when anything failed."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", type=int, nargs="*", help="run only these case numbers")
    parser.add_argument("--compiled", type=int, default=0,
                        help="cases of the compiled phase: games the compiled backend takes, mutated, played on both "
                             "backends in lockstep (needs numba)")
    parser.add_argument("--only-compiled", type=int, nargs="*", help="run only these cases of the compiled phase")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--timeout", type=float, default=F.TIMEOUT, help="seconds per case")
    parser.add_argument("--out", default="/tmp/fuzz_repro", help="folder for minimised reproducers")
    parser.add_argument("--minimise-seconds", type=float, default=60, help="time to minimise each finding (0: off)")
    parser.add_argument("--every", type=int, default=200, help="print progress every N cases")
    parser.add_argument("--replay", nargs="+", help="re-run saved reproducers instead of a campaign")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay, args.timeout)
    if args.compiled or args.only_compiled:
        if not F.compiled_available():
            parser.error("--compiled needs numba: pip install 'rulesdsl[compiled]'")
        F.warm_up_compiled()
    args.unbuilt = []
    counts, found = campaign(args)
    rows = save(found, Path(args.out), args)
    summary = {"cases": sum(counts.values()), "seed": args.seed, "counts": dict(counts.most_common()),
               "findings": rows, "unbuilt": args.unbuilt}
    Path(args.out, "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(json.dumps(summary["counts"], indent=2))
    if args.unbuilt:
        print(f"{len(args.unbuilt)} cases could not be built (a bug of the harness): see summary.json", file=sys.stderr)
    return 1 if found or args.unbuilt else 0


if __name__ == "__main__":
    sys.exit(main())
