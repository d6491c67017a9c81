"""Run a simulation's games on a Dask distributed cluster (a scheduler address, or 'local')."""

from __future__ import annotations

import os

from ..errors import RulesDslError


class ClusterError(RulesDslError):
    """The Dask cluster could not be reached or started."""


def dask_results(play_one, spec, indices: list[int], address: str, workers: int | None = None):
    """Yield (index, play_one(spec, index)) as games finish on the cluster (in any order).

    Every worker must be able to import rulesdsl and read the rule file at the same path (or the
    bundled game of that name). Results do not depend on which worker plays which game.
    """
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ClusterError("--dask needs Dask: pip install 'dask[distributed]'") from None
    cluster = None
    try:
        if address == "local":
            cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        else:
            client = Client(address, timeout=20)
    except (OSError, TimeoutError, ValueError) as exc:  # ValueError: an address Dask cannot read
        if cluster is not None:
            cluster.close()
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc} (hint: start one with "
                           "'dask scheduler' and workers with 'dask worker ADDRESS', or use --dask local)") from None
    try:
        futures = client.map(play_one, [spec] * len(indices), indices, pure=False)
        index_of = {future.key: index for future, index in zip(futures, indices)}
        for future in as_completed(futures):
            yield index_of[future.key], future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
