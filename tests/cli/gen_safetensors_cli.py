"""Writes OUT/safetensors_cli (the test build runs it; never committed) for
tests/cli/safetensors_cli_test.cc: `hhlo run -i "args[0]=params.safetensors"` binding a
jax.export artifact's dict of parameters from one safetensors file, and `-o FILE.safetensors`.
  - model.jax: Exported.serialize() of model(params, x) -> {"y": ..., "norm": ...}, params a dict
    {"dense": {"kernel", "bias"}, "layers": [{"w"}, {"w"}]} (leaves "args[0]['dense']['bias']",
    ..., "args[0]['layers'][1]['w']", then "args[1]");
  - params.safetensors: the parameters flattened to keys joined with '.' ("dense.kernel",
    "layers.1.w"), as flax.traverse_util.flatten_dict(sep=".") names them, written by
    safetensors.flax.save_file; x.npy;
  - model.y.npy, model.norm.npy: JAX's outputs of the deserialized artifact (exp.call);
  - step.jax: one SGD step of a loss of model, returning the new parameters (a dict of the same
    tree); step.out.safetensors: JAX's new parameters, flattened the same way (safetensors.numpy);
    model_after_step.y.npy: JAX's model(new parameters, x)["y"];
  - missing.safetensors (no "dense.bias") and extra.safetensors (one tensor "unused.w" more).
Run with the project's venv (JAX 0.10.2 CPU, safetensors):
  .venv/bin/python tests/cli/gen_safetensors_cli.py OUT
"""
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

try:
    import safetensors.flax
    import safetensors.numpy
except ImportError as e:  # the set-up's venv lacks it: say how to get it
    sys.exit(f"gen_safetensors_cli.py: {e}: run scripts/setup.sh (it pins safetensors in .venv)")

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/generated") / "safetensors_cli"
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(7)
f32 = lambda *s: jnp.asarray(rng.standard_normal(s), jnp.float32)  # noqa: E731

params = {"dense": {"kernel": f32(3, 4), "bias": f32(4)},
          "layers": [{"w": f32(4, 4)}, {"w": f32(4, 4)}]}
x = f32(2, 3)


def flat(tree):
    """The leaves of `tree` keyed by their paths joined with '.'."""
    def part(k):
        if isinstance(k, jax.tree_util.DictKey):
            return str(k.key)
        if isinstance(k, jax.tree_util.SequenceKey):
            return str(k.idx)
        return str(getattr(k, "name", k))
    return {".".join(part(k) for k in path): leaf
            for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]}


def model(p, x):
    h = jnp.tanh(x @ p["dense"]["kernel"] + p["dense"]["bias"])
    for layer in p["layers"]:
        h = jnp.tanh(h @ layer["w"])
    return {"y": h, "norm": jnp.sum(h * h)}


def step(p, x):
    grads = jax.grad(lambda q: model(q, x)["norm"])(p)
    return jax.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads)


def exported(fn, name):
    exp = export.export(jax.jit(fn))(params, x)
    (out / f"{name}.jax").write_bytes(exp.serialize())
    return export.deserialize(exp.serialize())


model_exp = exported(model, "model")
step_exp = exported(step, "step")
safetensors.flax.save_file(flat(params), str(out / "params.safetensors"))
np.save(out / "x.npy", np.asarray(x))
got = model_exp.call(params, x)
np.save(out / "model.y.npy", np.asarray(got["y"]))
np.save(out / "model.norm.npy", np.asarray(got["norm"]))
new_params = step_exp.call(params, x)
safetensors.numpy.save_file({k: np.asarray(v) for k, v in flat(new_params).items()},
                            str(out / "step.out.safetensors"))
np.save(out / "model_after_step.y.npy", np.asarray(model_exp.call(new_params, x)["y"]))

missing = {k: v for k, v in flat(params).items() if k != "dense.bias"}
safetensors.flax.save_file(missing, str(out / "missing.safetensors"))
safetensors.flax.save_file({**flat(params), "unused.w": f32(2)}, str(out / "extra.safetensors"))
print("in_names", model_exp.in_tree, "->", out)
