// `hhlo check MODEL.jax`: the signature of a serialized jax.export artifact (hhlo/program/
// exported.h), printed before check's report of its module.
#pragma once

#include <string>

#include "hhlo/program/exported.h"

namespace hhlo::cli {

/// Prints what `x` (read from `path`) records: function name, serialization and calling
/// convention versions, platforms, devices, each input and output with its pytree name, JAX
/// aval ("f32[b,3]") and sharding (HloSharding text, with the mesh and PartitionSpec where the
/// artifact holds them), the dimension variables, effects, and the VJP's signature when present.
void print_exported_signature(const Exported& x, const std::string& path);

}  // namespace hhlo::cli
