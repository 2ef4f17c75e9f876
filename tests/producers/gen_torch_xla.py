"""Writes what torch_xla saves for a small model of ours into OUT (default
tests/producers/fixtures/torch_xla), with torch's own outputs beside it:
  - bundle/: `torch_xla.stablehlo.save_as_stablehlo(exported, OUT/bundle)` of a Linear(3, 4),
    an eval-mode BatchNorm1d(4) (running statistics set to distinct values, so that the two
    same-shaped statistics swapped give other numbers) and a ReLU;
  - forward.mlir / forward.mlirbc: the same program's text and bytecode
    (`get_stablehlo_text()`, `get_stablehlo_bytecode()`), whose @main takes the weights too, in
    the order of bundle/functions/forward.meta;
  (the inputs and expected outputs are made at build time by gen_vectors.py, in NumPy);
  - versions.json: the versions that wrote them.
Run with the producers' venv (`make test-producers` makes it: torch and torch_xla pinned):
  PJRT_DEVICE=CPU .venv-torch/bin/python tests/producers/gen_torch_xla.py [OUT]
"""
import json
import os
import pathlib
import shutil
import sys

os.environ.setdefault("PJRT_DEVICE", "CPU")

import torch  # noqa: E402
import torch_xla  # noqa: E402
from torch_xla.stablehlo import exported_program_to_stablehlo, save_as_stablehlo  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from linear_bn import model_input_and_output  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here / "fixtures" / "torch_xla"
shutil.rmtree(out, ignore_errors=True)
out.mkdir(parents=True)
model, x, expected = model_input_and_output()

exported = torch.export.export(model, (x,))
save_as_stablehlo(exported, str(out / "bundle"))
program = exported_program_to_stablehlo(exported)
(out / "forward.mlir").write_text(program.get_stablehlo_text("forward"))
(out / "forward.mlirbc").write_bytes(program.get_stablehlo_bytecode("forward"))
(out / "versions.json").write_text(json.dumps(
    {"torch": torch.__version__, "torch_xla": torch_xla.__version__}, indent=1) + "\n")
print("torch_xla", torch_xla.__version__, "->", out)
