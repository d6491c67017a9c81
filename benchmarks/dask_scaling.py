"""Games/s of `--dask` against `--workers` on the same cores, and a scaling table, as a user would run them.

    python benchmarks/dask_scaling.py            # every bundled game, then the scaling table (MARK)
    python benchmarks/dask_scaling.py --quick    # fewer games and rounds
    python benchmarks/dask_scaling.py mark       # some of the games only (then the scaling table)

Runs alternate (workers, dask, dask, workers, ...) so that other load on the machine weighs on both alike;
the ratio is of the mean games/s that each run's summary reports. A Dask run's summary gives the time to
start (or reach) the cluster apart: it is paid once per cluster, not per game; its mean is shown too.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rulesdsl import load_game

GAMES = {"mabula": 4000, "mark": 400, "fast-track": 150, "marble-chase": 150}  # about 3 to 10 s each on 2 cores


def simulate(game: str, games: int, *extra: str) -> tuple[float, float]:
    """The games/s that `rulesdsl simulate` reports for one run, and the seconds it took to start the cluster."""
    agents = ",".join(["random"] * load_game(game).num_players)
    command = [sys.executable, "-m", "rulesdsl", "simulate", game, "--games", str(games), "--seed", "1",
               "--agents", agents, "--quiet", *extra]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"\(([\d,.]+) games/s\)", out).group(1).replace(",", ""))
    start = re.search(r"after ([\d.]+) s to start or reach the Dask cluster", out)
    return rate, float(start.group(1)) if start else 0.0


def shown(args: tuple) -> str:
    return " ".join(args) or "(one process)"


def compare(game: str, games: int, rounds: int) -> tuple[float, float, float]:
    """Mean games/s of --workers 2 and of --dask local --workers 2, alternating, and the mean cluster start."""
    local, dask, starts = [], [], []
    for i in range(rounds):
        order = [("local", local), ("dask", dask)][:: 1 if i % 2 == 0 else -1]
        for kind, results in order:
            extra = ("--workers", "2") if kind == "local" else ("--dask", "local", "--workers", "2")
            rate, start = simulate(game, games, *extra)
            results.append(rate)
            starts.append(start)
    return sum(local) / rounds, sum(dask) / rounds, sum(starts) / rounds


class SeparateCluster:
    """`dask scheduler` and `dask worker` processes started on their own, as on a real cluster."""

    def __init__(self, workers: int):
        self.folder = Path(tempfile.mkdtemp(prefix="rulesdsl-dask-"))
        file = self.folder / "scheduler.json"
        dask = [sys.executable, "-m"]
        quiet = dict(cwd=self.folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.processes = [subprocess.Popen(dask + ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                                                   "0", "--scheduler-file", str(file)], **quiet)]
        while not file.is_file() or not file.read_text().strip():
            time.sleep(0.1)
        self.address = json.loads(file.read_text())["address"]
        unprofiled = dict(os.environ, DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED="False")  # as the README says
        for _ in range(workers):
            self.processes.append(subprocess.Popen(dask + ["distributed.cli.dask_worker", self.address, "--nworkers",
                                                           "1", "--nthreads", "1"], env=unprofiled, **quiet))
        from distributed import Client

        with Client(self.address) as client:
            client.wait_for_workers(workers, timeout=60)

    def close(self):
        for process in reversed(self.processes):
            process.terminate()
            process.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help=f"the games to compare: {', '.join(GAMES)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the games, two rounds")
    parser.add_argument("--rounds", type=int, default=4, help="runs of each kind per game (default 4)")
    args = parser.parse_args()
    if set(args.games) - set(GAMES):
        parser.error(f"no benchmark for {', '.join(sorted(set(args.games) - set(GAMES)))}")
    scale, rounds = (0.1, 2) if args.quick else (1, args.rounds)

    print("| game | games | `--workers 2` games/s | `--dask local --workers 2` games/s | ratio | cluster start |")
    print("|---|---|---|---|---|---|")
    for game in args.games or GAMES:
        games = max(20, int(GAMES[game] * scale))
        local, dask, start = compare(game, games, rounds)
        print(f"| {game} | {games:,} | {local:,.0f} | {dask:,.0f} | {dask / local:.2f} | {start:.1f} s |", flush=True)

    game, games = "mark", max(40, int(GAMES["mark"] * scale))
    print(f"\nScaling, {game}, {games} games (`rulesdsl simulate {game} --games {games} --seed 1 "
          "--agents random,random --quiet ...`):\n")
    print("| run | games/s | cluster start |")
    print("|---|---|---|")
    for extra in [(), ("--workers", "2"), ("--workers", "4"), ("--dask", "local", "--workers", "1"),
                  ("--dask", "local", "--workers", "2"), ("--dask", "local", "--workers", "4")]:
        rate, start = simulate(game, games, *extra)
        print(f"| `{shown(extra)}` | {rate:,.0f} | {f'{start:.1f} s' if start else ''} |", flush=True)
    for workers in (1, 2):
        cluster = SeparateCluster(workers)
        try:
            rate, start = simulate(game, games, "--dask", cluster.address)
        finally:
            cluster.close()
        print(f"| `dask scheduler` + {workers} x `dask worker ADDRESS --nworkers 1 --nthreads 1` (unprofiled), "
              f"`--dask ADDRESS` | {rate:,.0f} | {start:.1f} s |", flush=True)


if __name__ == "__main__":
    main()
