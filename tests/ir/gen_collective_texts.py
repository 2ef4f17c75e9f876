"""Writes OUT/collectives/NAME.mlir: JAX's text (jax.jit(...).lower().as_text()) of shard_map
programs over a 4-device mesh that use one collective each (psum, all_gather, psum_scatter,
all_to_all, ppermute, pmax), for tests/ir/collectives_jax_test.cc, which builds the same op with
hhlo's builder and compares attributes and types with JAX's. Run by the test build (never
committed): .venv/bin/python tests/ir/gen_collective_texts.py OUT
"""
import os

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=4").strip()

import pathlib  # noqa: E402
import sys  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

out = pathlib.Path(sys.argv[1]) / "collectives"
out.mkdir(parents=True, exist_ok=True)
mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))


def emit(name, body, x_shape, out_spec=P("x")):
    fn = jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=out_spec)
    text = jax.jit(fn).lower(jnp.zeros(x_shape, jnp.float32)).as_text()
    (out / f"{name}.mlir").write_text(text)
    print(name)


# Per-shard operand: f32[2, 4] (global [8, 4] split over x along dim 0).
emit("psum", lambda a: jax.lax.psum(a, "x"), (8, 4))
emit("pmax", lambda a: jax.lax.pmax(a, "x"), (8, 4))
emit("all_gather", lambda a: jax.lax.all_gather(a, "x", axis=1, tiled=True), (8, 4))
emit("psum_scatter", lambda a: jax.lax.psum_scatter(a, "x", scatter_dimension=1, tiled=True),
     (8, 4))
emit("all_to_all", lambda a: jax.lax.all_to_all(a, "x", 1, 0, tiled=True), (8, 4))
emit("ppermute", lambda a: jax.lax.ppermute(a, "x", [(0, 1), (1, 2), (2, 3), (3, 0)]), (8, 4))
