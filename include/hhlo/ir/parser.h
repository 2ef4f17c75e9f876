// The StableHLO text parser: MLIR text (what our printer, `jax.jit(f).lower().as_text()`,
// `jax.export` and the StableHLO testdata contain) into a Module. The mirror of
// hhlo/ir/printer.h, with no MLIR or XLA dependency. See docs/ir.md "Parsing StableHLO text".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/ir/module.h"

namespace hhlo {

/// Parser options.
struct ParseOptions {
  /// Name of the text in error messages and in ParseError::source() (e.g. the file path).
  std::string source_name = "<input>";
  /// Run the verifier (hhlo/ir/verifier.h) over the parsed module, accepting ops outside our
  /// builder's set with the result types the file gives, and skipping shape rules for ops with a
  /// dynamic (`?`) dimension. A violated rule throws hhlo::ShapeError with the op name and
  /// constraint of the rule and a message that starts "SOURCE:LINE:COLUMN: " at the op.
  bool verify = true;
  /// Stop after `module [@name] [attributes {...}]`: the result holds the name and the module
  /// attributes and no functions (an empty module for bare `func.func`s). For a caller that
  /// needs only those (e.g. `mhlo.num_partitions`) of a text whose body it may not read.
  bool header_only = false;
};

/// True when `program` is MLIR bytecode (`.mlirbc`, what `jax.export`'s `serialize()` carries),
/// recognised by its magic number "ML\xefR"; parse_module reads it with our bytecode reader
/// (hhlo/ir/bytecode.h read_bytecode), as it reads text: one way in for both forms.
bool is_mlir_bytecode(std::string_view program);

/// Parses one MLIR module: `module [@name] [attributes {...}] { func.func ... }` (or bare
/// `func.func`s), each op in the generic form `"d.op"(%a) <{props}> ({regions}) {attrs} : (..) ->
/// ..` or in the pretty form the StableHLO printer emits for it; `#alias = ...` definitions
/// before or after the module, `loc(...)` locations (file:line:col kept as Location, other forms
/// kept as Location::text). Ops our builder lacks are kept with the file's operands, result types,
/// attributes and regions; attributes with no typed form here become OpaqueAttr.
/// Throws hhlo::ParseError (line, column, what was expected) on malformed text (for MLIR
/// bytecode: line 0, the byte offset and the section, read_bytecode) — never crashes or
/// hangs: nesting is limited to 200 levels, alias expansion is bounded. Throws hhlo::ShapeError /
/// hhlo::Error (with the op's line) when `options.verify` and the verifier rejects the module.
Module parse_module(std::string_view text, const ParseOptions& options = {});

/// Reads `path` and parses it (source_name defaults to the path). Throws hhlo::IoError when the
/// file cannot be read, else as parse_module.
Module parse_module_file(const std::string& path, ParseOptions options = {});

/// Parses a tensor type as written in MLIR (`tensor<2x?xf32>`, `tensor<complex<f64>>`). Throws
/// hhlo::ParseError on anything else.
TensorType parse_type(std::string_view text);

// ---------------------------------------------------------------- signatures (entry selection)

/// A function's signature as the runtime and CLI need it: argument and result types with their
/// attributes (`tf.aliasing_output`, `jax.result_info`, `mhlo.sharding`, ...).
struct FuncSignature {
  std::string name;
  Visibility visibility = Visibility::public_;
  std::vector<TensorType> arg_types, result_types;
  /// Per argument / per result; empty lists where the file has none.
  std::vector<std::vector<NamedAttr>> arg_attrs, result_attrs;
  /// `jax.result_info` of each result when it is a string attribute, else "" (an empty string
  /// is also what JAX writes for a single unnamed result).
  std::vector<std::string> result_names;
  /// The attribute `name` of argument / result `i`, or nullptr (also when `i` is out of range).
  const Attribute* arg_attr(size_t i, std::string_view name) const;
  const Attribute* result_attr(size_t i, std::string_view name) const;
};

/// Signature of `f` (which must have returned; throws hhlo::Error otherwise).
FuncSignature signature(const Func& f);
/// Signatures of the public functions of `module`, in module order.
std::vector<FuncSignature> public_functions(const Module& module);
/// The function named `name` (default "main"). Throws hhlo::Error naming the public functions
/// that do exist when there is none of that name.
const Func& entry_function(const Module& module, std::string_view name = "main");

}  // namespace hhlo
