"""The peer of the serving benchmark (bench/serve.py, part c): a Seldon MLServer runtime serving a
jax.export artifact with jax.jit, as a JAX user would write one.

The artifact is the one `hhlo serve` serves (its path is the model settings' `parameters.uri`),
called as `jax.jit(exported.call)`: the same program, compiled by JAX's XLA per batch size. Every
batch size from 1 to `max_batch_size` is compiled and run once at load, so that no request of the
benchmark waits for a compilation (as `hhlo serve` compiles and warms its batch sizes before it is
ready). MLServer's adaptive batching (`max_batch_size`, `max_batch_time` in model-settings.json)
stacks concurrent requests along the first dimension before `predict` and splits the answer.

Input: the request's first input, FP32, any name; output `result` (the name `hhlo serve` gives a
jax.export artifact's single output), FP32.
"""
import jax
import numpy as np
from jax import export
from mlserver import MLModel
from mlserver.codecs import NumpyCodec
from mlserver.types import InferenceRequest, InferenceResponse


class JaxExportRuntime(MLModel):
    async def load(self) -> bool:
        with open(self.settings.parameters.uri, "rb") as f:
            exported = export.deserialize(bytearray(f.read()))
        self._fn = jax.jit(exported.call)
        aval = exported.in_avals[0]
        rows = max(1, self.settings.max_batch_size)
        for b in range(1, rows + 1):  # warm-up: every batch size the batcher can make
            x = np.zeros((b, *aval.shape[1:]), np.float32)
            self._fn(x).block_until_ready()
        return True

    async def predict(self, payload: InferenceRequest) -> InferenceResponse:
        x = NumpyCodec.decode_input(payload.inputs[0])
        y = np.asarray(self._fn(x.astype(np.float32, copy=False)))
        return InferenceResponse(model_name=self.name,
                                 outputs=[NumpyCodec.encode_output("result", y)])
