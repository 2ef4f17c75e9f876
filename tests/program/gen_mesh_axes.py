"""Writes a jax.export artifact of shard_map collectives over a 2x2 mesh of 4 CPU devices for the
mesh-axes replica-group test (tests/cli/run_exported_test.cc,
RunExported.MeshAxesCollectivesOverA2x2MeshRunWithJaxsValues); the test build runs it into
build/tests/generated/exported with the project's JAX and into .../exported_jax_new with the
newest (nothing generated is committed). JAX 0.12.1 writes the collectives' replica groups as
StableHLO 1.16+'s `#stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [...]>`, JAX 0.10.2
as explicit groups. The collectives name one axis, both axes, and both in the mesh's reverse order
(whose groups order the devices minor axis first). Files: mesh2d.jax, mesh2d.in0.npy and JAX's
outputs mesh2d.out<j>.npy from the deserialized artifact called on inputs placed as its
in_specs say.
  .venv/bin/python tests/program/gen_mesh_axes.py OUT
"""
import os

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=4").strip()

import pathlib  # noqa: E402
import sys  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import export  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

assert len(jax.devices()) == 4, jax.devices()
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/exported")
out.mkdir(parents=True, exist_ok=True)
auto = jax.sharding.AxisType.Auto
mesh = jax.make_mesh((2, 2), ("a", "b"), axis_types=(auto, auto))


def body(v):
    return (jax.lax.psum(v, "b"),
            jax.lax.all_gather(v, "a", tiled=True),
            jax.lax.all_gather(v, ("b", "a"), tiled=True),
            jax.lax.psum_scatter(v, "a", tiled=True),
            jax.lax.all_to_all(v, "b", 0, 0, tiled=True),
            jax.lax.psum(v, ("a", "b")))


f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("a", "b"),
                          out_specs=(P("a"), P(None, "b"), P(), P("a", "b"), P("a", "b"), P()),
                          check_vma=False))
x = np.random.default_rng(5).standard_normal((8, 4)).astype(np.float32)
exp = export.export(f)(jax.ShapeDtypeStruct(x.shape, jnp.float32))
(out / "mesh2d.jax").write_bytes(bytes(exp.serialize()))
np.save(out / "mesh2d.in0.npy", x)
back = export.deserialize(bytearray((out / "mesh2d.jax").read_bytes()))
results = jax.jit(back.call)(jax.device_put(x, NamedSharding(mesh, P("a", "b"))))
for j, r in enumerate(results):
    np.save(out / f"mesh2d.out{j}.npy", np.asarray(r))
print(f"jax {jax.__version__}: mesh2d ({len(results)} outputs) in {out}")
