"""mpi4jax's allreduce at the sizes of bench/mpi_allreduce.cc (issue 24, item 7), run by
bench/mpi_allreduce.sh under `mpirun -np P` with the Python of a separate venv holding mpi4jax
from PyPI (built against the same Debian Open MPI through mpicc). For each size from 8 B to
64 MiB (f32): one call of a jitted function holding one mpi4jax.allreduce (sum), waited for with
block_until_ready, timed as bench/mpi_allreduce.cc times ours (rounds of a barrier then `iters`
calls; the median over rounds of rank 0's mean), next to an mpi4py comm.Allreduce loop on NumPy
arrays. Prints one line per size: bytes, mpi4jax us, mpi4py us.
Usage: mpirun -np 2 VENV/bin/python bench/mpi_allreduce_mpi4jax.py [ROUNDS] [MAX_BYTES]"""
import sys
import time

import jax
import jax.numpy as jnp
import mpi4jax
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD


def seconds_per(iters, f):
    f()
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(iters):
        f()
    return (time.perf_counter() - t0) / iters


def allreduce(x):
    out = mpi4jax.allreduce(x, op=MPI.SUM, comm=comm)
    return out[0] if isinstance(out, tuple) else out  # older mpi4jax returns (result, token)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    max_bytes = int(sys.argv[2]) if len(sys.argv) > 2 else 64 << 20
    fn = jax.jit(allreduce)
    if comm.rank == 0:
        print(f"# mpi4jax {mpi4jax.__version__}, jax {jax.__version__}, {comm.size} processes, "
              f"{rounds} rounds; times in us")
        print(f"# {'bytes':>10} {'mpi4jax':>10} {'mpi4py':>10}")
    bytes_ = 8
    while bytes_ <= max_bytes:
        n = bytes_ // 4
        iters = int(min(max((1 << 26) // bytes_, 5), 2000))
        x = jnp.ones((n,), jnp.float32)
        a = np.ones((n,), np.float32)
        b = np.empty_like(a)
        tj, tp = [], []
        for _ in range(rounds):
            tj.append(seconds_per(iters, lambda: fn(x).block_until_ready()))
            tp.append(seconds_per(iters, lambda: comm.Allreduce(a, b, op=MPI.SUM)))
        if comm.rank == 0:
            print(f"  {bytes_:>10} {1e6 * np.median(tj):>10.2f} {1e6 * np.median(tp):>10.2f}",
                  flush=True)
        bytes_ = max_bytes + 1 if bytes_ == max_bytes else min(bytes_ * 8, max_bytes)


if __name__ == "__main__":
    main()
