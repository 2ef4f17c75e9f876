"""Writes what torchax exports for a small model of ours into OUT (default
tests/producers/fixtures/torchax), with torch's own outputs beside it:
  - model.jax: `torchax.export.exported_program_to_stablehlo(torch.export.export(...))`'s
    jax.export artifact, `serialize()`d, of a Linear(3, 4), an eval-mode BatchNorm1d(4) and a ReLU
    (the model of gen_torch_xla.py); its inputs are (weights, (x,)) as torchax flattens them;
  (its flat inputs, in torchax's order, and expected outputs are made at build time by
  gen_vectors.py, in NumPy);
  - versions.json: the versions that wrote it.
Run with the producers' venv (`make test-producers` makes it: torch, torchax and JAX pinned):
  .venv-torch/bin/python tests/producers/gen_torchax.py [OUT]
"""
import json
import pathlib
import shutil
import sys

import jax
import torch
import torchax
from torchax.export import exported_program_to_stablehlo

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from linear_bn import model_input_and_output  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here / "fixtures" / "torchax"
shutil.rmtree(out, ignore_errors=True)
out.mkdir(parents=True)
model, x, expected = model_input_and_output()

weights, exp = exported_program_to_stablehlo(torch.export.export(model, (x,)))
(out / "model.jax").write_bytes(bytes(exp.serialize()))
flat = jax.tree_util.tree_leaves((weights, (x.numpy(),)))
(out / "versions.json").write_text(json.dumps(
    {"torch": torch.__version__, "torchax": torchax.__version__, "jax": jax.__version__},
    indent=1) + "\n")
print("torchax", torchax.__version__, "with JAX", jax.__version__, "->", out, f"({len(flat)} inputs)")
