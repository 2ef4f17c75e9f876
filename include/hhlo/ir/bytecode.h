// The MLIR bytecode reader: StableHLO portable artifacts (what `jax.export` serializes as
// `Exported.mlir_module_serialized`, and jaxlib's `stablehlo.serialize_portable_artifact`) and
// plain MLIR bytecode of StableHLO itself (the stablehlo, chlo, func and builtin dialects:
// `write_bytecode` of a JAX lowering, TensorFlow's `stablehlo_serialized`, torch_xla's
// `forward.bytecode`) read into the same Module the text parser gives (DESIGN.md "The bytecode
// reader is the text parser's twin"; docs/ir.md "Reading MLIR bytecode"). Implements MLIR's "MLIR
// Bytecode Format" (sections, varints, string/dialect/attribute-type/IR/properties/resource
// sections, bytecode versions 0 to 6), the builtin, VHLO, StableHLO and CHLO dialects' bytecode
// encodings, ODS's property encoding of the stablehlo, chlo and func ops, and the VHLO ops and
// attributes mapped to current StableHLO as the VHLO-to-StableHLO legalization does.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "hhlo/core/error.h"
#include "hhlo/ir/module.h"

namespace hhlo {

/// Options of read_bytecode.
struct BytecodeOptions {
  /// Name of the bytecode in error messages and in ParseError::source() (e.g. the file path).
  std::string source_name = "<bytecode>";
  /// Run the verifier over the module read, as parse_module does (ParseOptions::verify).
  bool verify = true;
};

/// True when `bytes` starts with MLIR bytecode's magic number "ML\xefR".
bool is_bytecode(std::span<const std::uint8_t> bytes);

/// Reads MLIR bytecode holding a VHLO module (a StableHLO portable artifact) or a module of the
/// stablehlo, chlo and func dialects (plain bytecode; ops' properties as StableHLO 1.17 to 1.25
/// write them) into a Module equal to what parse_module gives for the module's StableHLO text
/// (plain ops as they are, defaults StableHLO's printer elides dropped); `vhlo.add_v1` becomes
/// `stablehlo.add`, `vhlo.func_v1` `func.func`, VHLO attributes our typed attributes (i64
/// tensors of `dimensions`-like attributes `array<i64: ..>`, `dot_general`'s dimension attributes
/// one DotDimensionNumbers, defaults the legalization drops dropped), Shardy's meshes, shardings
/// and ops as the parser reads their text, and locations as the parser keeps them
/// (`loc("file":line:col)` as a Location, name/call-site/fused/range locations as their text).
/// Throws hhlo::ParseError for malformed bytecode and for anything not read yet (an op, type or
/// attribute outside the set read here: tuples, tokens, quantized types, resources, a plain op's
/// properties of a layout no known release wrote, ...):
/// source() is "NAME (bytecode SECTION section)", line() is 0 and column() the byte offset in
/// `bytes`; the message names what was expected and found ("found bytecode: op vhlo.foo_v1 not
/// read yet"). Never crashes on any input: every index and length is checked, nesting is limited
/// to 200, a tensor attribute to 2 GiB, and what is read prints as text that parses.
/// Throws hhlo::ShapeError / hhlo::Error when `options.verify` and the verifier rejects the module,
/// and hhlo::Error for a call cycle also unverified (as parse_module).
Module read_bytecode(std::span<const std::uint8_t> bytes, const BytecodeOptions& options = {});

/// read_bytecode of the bytes of a string (e.g. a file read into memory).
Module read_bytecode(std::string_view bytes, const BytecodeOptions& options = {});

}  // namespace hhlo
