"""JAX exports for the entry tests (tests/runtime/entry_compile_test.cc, tests/cli): a
multi-platform export whose code depends on the platform, one whose code does not, and one with
named (pytree) results. Run by the test build; JAX's text is never committed.

  .venv/bin/python tests/runtime/gen_entry_exports.py OUT_DIR   # writes OUT_DIR/entry/NAME.mlir

The tests check the values by hand (x * 2 on CPU, x * 3 elsewhere; sin(x) * 2; sum and max)."""
import os
import sys

import jax
import jax.numpy as jnp
from jax import export, lax

x32 = jax.ShapeDtypeStruct((3,), jnp.float32)


def dependent(x):
    return lax.platform_dependent(x, cpu=lambda x: x * 2.0, default=lambda x: x * 3.0)


def plain(x):
    return jnp.sin(x) * 2.0


def named(x):
    return {"total": jnp.sum(x), "largest": jnp.max(x)}


def main():
    out = os.path.join(sys.argv[1], "entry")
    os.makedirs(out, exist_ok=True)
    programs = {
        "multiplatform_dependent": export.export(jax.jit(dependent), platforms=("cuda", "cpu"))(x32),
        "multiplatform_plain": export.export(jax.jit(plain), platforms=("cpu", "cuda"))(x32),
        "named_results": export.export(jax.jit(named))(x32),
    }
    for name, exp in programs.items():
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(exp.mlir_module())
    print(f"{len(programs)} programs in {out}")


if __name__ == "__main__":
    main()
