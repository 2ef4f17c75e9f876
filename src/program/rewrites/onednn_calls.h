// The two substitutions of the oneDNN rewrite (hhlo/program/onednn_rewrite.h), internal to
// src/program: each says why it cannot serve an op, or emits the kernel's call standing for it.
#pragma once

#include <string>
#include <vector>

#include "hhlo/ir/module.h"

namespace hhlo::detail {

/// The call of `target` standing for `op` (its one result's type and its location), with
/// `config` as the typed-FFI attributes (the backend_config dictionary custom_call gives an
/// api_version 4 call: hhlo/ir/ops.h), appended at the insertion point of the operands' function.
Value onednn_kernel_call(const Op& op, const std::vector<Value>& operands, const char* target,
                         DictAttr config);

/// The call of `hhlo_onednn_convolution` standing for `stablehlo.convolution` `op` on `threads`
/// OpenMP threads; nothing (and `why` set) when oneDNN cannot run it as the spec defines it.
std::optional<Value> onednn_convolution_call(const Op& op, const std::vector<Value>& operands,
                                             int threads, std::string& why);

/// The call of `hhlo_onednn_matmul` standing for `stablehlo.dot_general` `op` on `threads`
/// threads of the matmul's team (hhlo/onednn/kernels.h); nothing (and `why` set) when oneDNN's
/// matmul cannot run it as the spec defines it.
std::optional<Value> onednn_matmul_call(const Op& op, const std::vector<Value>& operands,
                                        int threads, std::string& why);

}  // namespace hhlo::detail
