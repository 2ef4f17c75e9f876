"""Writes OUT/spmd/NAME.mlir, NAME.in<i>.npy and NAME.out<j>.npy (the test build runs it; never
committed): JAX programs lowered with shardings over 4 CPU devices
(--xla_force_host_platform_device_count=4), their global inputs, and the global outputs JAX
computes for them on those 4 devices. tests/cli/spmd_run_test.cc runs each through
`hhlo run` and compares.

Cases: elementwise over a 1-D mesh, a matmul with a sharded contracting dimension (the
partitioner adds the all_reduce), a data-parallel gradient step of a small MLP (batch sharded,
parameters replicated), a 2-D mesh, a reduction to a replicated scalar, and shard_map with psum
and all_gather (sdy.manual_computation). Then the same cases but shard_map lowered for GSPMD
(jax_use_shardy_partitioner=False: `mhlo.sharding` strings, no sdy.mesh) as gspmd_NAME, plus
gspmd_mesh_2d_transposed (axes listed out of mesh order: a transposed iota tile assignment).
Also shard_map_vjp.{x,w,c1,c2,c3,dx,dw}.npy: JAX's jax.vjp of a shard_map for fixed cotangents
(tests/autodiff/collectives_vjp_test.cc).

Run with the project's venv (JAX 0.10.2 CPU): .venv/bin/python tests/cli/gen_spmd_programs.py OUT
"""
import os

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=4").strip()

import pathlib  # noqa: E402
import sys  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

assert len(jax.devices()) == 4, jax.devices()
out = pathlib.Path(sys.argv[1]) / "spmd"
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(11)


CASES = []


def emit(name, fn, in_specs, out_specs, args, mesh):
    CASES.append((name, fn, in_specs, out_specs, args, mesh))
    write(name, fn, in_specs, out_specs, args, mesh)


def write(name, fn, in_specs, out_specs, args, mesh):
    shard = lambda spec: NamedSharding(mesh, spec)  # noqa: E731
    jitted = jax.jit(fn, in_shardings=tuple(shard(s) for s in in_specs),
                     out_shardings=tuple(shard(s) for s in out_specs))
    text = jitted.lower(*args).as_text()
    assert "mhlo.num_partitions = 4" in text, name
    (out / f"{name}.mlir").write_text(text)
    for i, a in enumerate(args):
        np.save(out / f"{name}.in{i}.npy", np.asarray(a))
    placed = [jax.device_put(a, shard(s)) for a, s in zip(args, in_specs)]
    results = jitted(*placed)
    for j, r in enumerate(results):
        np.save(out / f"{name}.out{j}.npy", np.asarray(r))
    print(f"{name}: {len(args)} inputs, {len(results)} outputs")


f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
auto = jax.sharding.AxisType.Auto  # shardings propagate as with jit's classic in/out_shardings
line = jax.make_mesh((4,), ("x",), axis_types=(auto,))
grid = jax.make_mesh((2, 2), ("x", "y"), axis_types=(auto, auto))

emit("elementwise", lambda a, b: (a * 2.0 + jnp.sin(b),), [P("x"), P("x")], [P("x")],
     [f32(8, 3), f32(8, 3)], line)

emit("matmul_contracting", lambda x, w: (x @ w,), [P(None, "x"), P("x", None)], [P()],
     [f32(4, 8), f32(8, 5)], line)


def loss(params, x, y):
    w1, b1, w2 = params
    h = jnp.tanh(x @ w1 + b1)
    return jnp.mean((h @ w2 - y) ** 2)


def dp_step(w1, b1, w2, x, y):
    l, (g1, gb, g2) = jax.value_and_grad(loss)((w1, b1, w2), x, y)
    lr = 0.1
    return l, w1 - lr * g1, b1 - lr * gb, w2 - lr * g2


emit("data_parallel_step", dp_step, [P(), P(), P(), P("x"), P("x")], [P(), P(), P(), P()],
     [f32(6, 16), f32(16), f32(16, 2), f32(32, 6), f32(32, 2)], line)

emit("mesh_2d", lambda a, w: (jnp.maximum(a @ w, 0.0), a.T), [P("x", "y"), P("y", None)],
     [P("x", None), P("y", "x")], [f32(4, 6), f32(6, 4)], grid)

emit("reduce_scalar", lambda a: (jnp.sum(a), jnp.max(a, axis=0)), [P("x", "y")], [P(), P()],
     [f32(8, 4)], grid)


def manual(a):
    return jax.lax.psum(a, "x"), jax.lax.all_gather(a, "x", tiled=True)


smap = jax.shard_map(manual, mesh=line, in_specs=P("x"), out_specs=(P(), P()), check_vma=False)
emit("shard_map_psum_all_gather", smap, [P("x")], [P(), P()], [f32(8, 3)], line)


# The gradient of a shard_map (tests/autodiff/collectives_vjp_test.cc builds the same one): psum,
# a per-shard output and all_gather, a replicated operand; JAX's VJP for fixed cotangents.
def body(a, w):
    return (jax.lax.psum(jnp.sin(a) * w, "x"), a * a,
            jax.lax.all_gather(a * w, "x", tiled=True))


mapped = jax.shard_map(body, mesh=line, in_specs=(P("x"), P()), out_specs=(P(), P("x"), P()),
                       check_vma=False)
gx, gw = f32(8, 3), f32(3)
gcts = (f32(2, 3), f32(8, 3), f32(8, 3))
_, pullback = jax.vjp(jax.jit(mapped), gx, gw)
grads = pullback(gcts)
for key, value in [("x", gx), ("w", gw), ("c1", gcts[0]), ("c2", gcts[1]), ("c3", gcts[2]),
                   ("dx", grads[0]), ("dw", grads[1])]:
    np.save(out / f"shard_map_vjp.{key}.npy", np.asarray(value))
print("shard_map_vjp: JAX's gradient of a shard_map")

# GSPMD: the same programs with mhlo.sharding strings (the shard_map aside: a manual
# computation needs the Shardy partitioner here), same inputs.
jax.config.update("jax_use_shardy_partitioner", False)
for name, fn, in_specs, out_specs, args, mesh in list(CASES):
    if name.startswith("shard_map"):
        continue
    write("gspmd_" + name, fn, in_specs, out_specs, args, mesh)
    text = (out / f"gspmd_{name}.mlir").read_text()
    assert "mhlo.sharding" in text and "sdy.mesh" not in text, name
write("gspmd_mesh_2d_transposed", lambda a, w: (a @ w, a * 2.0), [P("y", "x"), P("x", None)],
      [P("y", None), P(None, "y")], [f32(4, 6), f32(6, 4)], grid)
