// The opt-in rewrite into oneDNN's kernels (hhlo/program/onednn_rewrite.h): @main copied through
// inline_call with a rewrite, consulted inside regions too (a scan's body), that swaps each
// convolution and dot_general oneDNN serves for a call of its kernel (onednn_calls.h).
#include "hhlo/program/onednn_rewrite.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/ir/inline.h"
#include "hhlo/program/program.h"
#include "main_copy.h"
#include "onednn_calls.h"

namespace hhlo {

namespace detail {

Value onednn_kernel_call(const Op& op, const std::vector<Value>& operands, const char* target,
                         DictAttr config) {
  // The attributes custom_call (hhlo/ir/ops.h) gives a typed-FFI call, at the op's own location
  // (the builder would record this file's).
  std::vector<NamedAttr> attrs = {{"call_target_name", StringAttr{target}},
                                  {"api_version", i32_attr(4)},
                                  {"has_side_effect", BoolAttr{false}},
                                  {"backend_config", std::move(config)}};
  return operands.at(0).func().append({"stablehlo.custom_call",
                                       operands,
                                       {op.result(0).type()},
                                       std::move(attrs),
                                       {},
                                       op.loc()})[0];
}

}  // namespace detail

namespace {

bool partitioned(const Module& m) { return num_partitions_of(m) > 1 || !m.meshes().empty(); }

}  // namespace

std::string OneDnnOps::describe() const {
  std::string s = convolution && dot_general ? "convolutions and dot_generals"
                  : convolution              ? "convolutions"
                  : dot_general              ? "dot_generals"
                                             : "nothing";
  if (threads == 0) return s;
  return fmt::format("{} ({} thread{})", s, threads, threads == 1 ? "" : "s");
}

OneDnnRewrite rewrite_for_onednn(const Module& module, const OneDnnOps& ops) {
  if (ops.threads < 0)
    throw Error(fmt::format(
        "rewrite_for_onednn: threads is {}; give 0 (oneDNN's default) or a count", ops.threads));
  OneDnnRewrite r;
  bool rewrite = !partitioned(module);
  InlineRewrite swap =
      [&](const Op& op, const std::vector<Value>& operands) -> std::optional<std::vector<Value>> {
    bool conv = ops.convolution && op.name() == "stablehlo.convolution";
    bool dot = ops.dot_general && op.name() == "stablehlo.dot_general";
    if (!conv && !dot) return std::nullopt;
    std::string why = "a partitioned module";
    std::optional<Value> call;
    if (rewrite)
      call = conv ? detail::onednn_convolution_call(op, operands, ops.threads, why)
                  : detail::onednn_matmul_call(op, operands, ops.threads, why);
    if (!call) {
      if (r.kept++ == 0) r.first_kept_reason = fmt::format("{}: {}", op.name().substr(10), why);
      return std::nullopt;
    }
    ++r.rewritten;
    return std::vector<Value>{*call};
  };
  r.module = detail::copy_main(module, swap, "rewrite_for_onednn", RewriteScope::regions_too);
  return r;
}

}  // namespace hhlo
