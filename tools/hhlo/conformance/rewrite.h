// Text rewrites of conformance programs so that their `check.*` custom calls run on a stock plugin:
// either as typed FFI calls (api_version = 4) served by our handlers, or as extra outputs of @main
// compared on the host.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "conformance/compare.h"
#include "hhlo/core/tensor_type.h"

namespace hhlo::conformance {

/// One `stablehlo.custom_call @check.*(%actual, %expected)` found in a program.
struct CheckCall {
  CheckKind kind;
  /// SSA operands as written, e.g. "%2" or "%1#0".
  std::string actual, expected;
  /// Type of both operands.
  TensorType type;
  /// 1-based line number in the original text.
  int line = 0;
};

/// The check calls of `program`, in order. Throws hhlo::Error naming the line when a
/// `check.*` call has a form we do not understand (not two operands of one tensor type).
std::vector<CheckCall> find_checks(std::string_view program);

/// `program` with `api_version = 4 : i32` added to every check call's attributes, so XLA
/// dispatches them to typed FFI handlers registered under the check.* names.
std::string rewrite_checks_to_ffi(std::string_view program);

/// `program` with every check call removed and its two operands appended to @main's results and
/// return, in order (actual0, expected0, actual1, expected1, ...). The original results keep their
/// positions. Throws hhlo::Error when @main's header or return cannot be found.
std::string rewrite_checks_to_outputs(std::string_view program);

/// `program` with every hex literal of i1 data (`dense<"0x..."> : tensor<...xi1>`) written as a
/// list of `true`/`false` (nested per dimension), which every MLIR version reads the same way.
/// The hex form of i1 data changed between MLIR versions: the StableHLO testdata (and the MLIR of
/// PJRT C API 0.81 plugins) packs 8 elements per byte, least significant bit first (ceil(n / 8)
/// bytes), newer MLIR (the 0.115 plugin) stores one byte per element (n bytes) and refuses the
/// packed form ("elements hex data size is invalid for provided type"). A single byte 0x00 or
/// 0xFF is a splat, written as all false / all true (newer MLIR would keep the byte 0xFF, which
/// converts to 255). Both non-splat sizes are recognised; other literals are left as they are.
/// Throws hhlo::Error naming the line when an i1 hex literal has neither size.
std::string rewrite_i1_hex_literals(std::string_view program);

}  // namespace hhlo::conformance
