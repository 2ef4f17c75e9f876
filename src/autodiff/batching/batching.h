// Private: the batching walk's helpers and the registration entry points of the built-in batching
// rule families (one file each, same stems as the VJP/JVP rules in ../rules/).
#pragma once

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/ops.h"

namespace hhlo::ad::detail {

using BatchRegistry = std::map<std::string, BatchRule, std::less<>>;
void register_elementwise_batching(BatchRegistry& r);
void register_shape_batching(BatchRegistry& r);
void register_dot_general_batching(BatchRegistry& r);
void register_reduce_batching(BatchRegistry& r);
void register_convolution_batching(BatchRegistry& r);
void register_reduce_window_batching(BatchRegistry& r);
void register_indexing_batching(BatchRegistry& r);
void register_control_flow_batching(BatchRegistry& r);
void register_batch_norm_batching(BatchRegistry& r);
void register_linalg_batching(BatchRegistry& r);
void register_collectives_batching(BatchRegistry& r);

/// Walks the ops of `block` (a per-example function body or region) in order at the current
/// insertion point, its arguments bound to `args`, values of enclosing blocks looked up in the
/// current walk; returns what its terminator returns. Must run inside a vmap walk.
std::vector<Batched> batch_block(const Block& block, const std::vector<Batched>& args);
/// Which values the terminator of `block` returns batched when its arguments are batched as
/// `args` (an over-approximation: a result is batched when anything it depends on is). Used for
/// the fixpoint of while and to join the branches of if / case.
std::vector<bool> batched_results(const Block& block, const std::vector<bool>& args);
/// Whether value `v` of the per-example program is batched in the current walk (values of
/// enclosing blocks already walked).
bool is_batched(Value v);
/// The axis size of the current walk.
int64_t axis_size();

/// Re-emits `op` with `operands`, `result_types` and `attrs`; its regions are re-emitted
/// per-example (unbatched arguments; a region reading a batched value is an error).
std::vector<Value> emit(const Op& op, const std::vector<Value>& operands,
                        const std::vector<TensorType>& result_types, std::vector<NamedAttr> attrs);
/// The operands of a reduce-like op (N inputs, then N init values): the inputs batched in front
/// (materialized to size `n`), the init values as they are; a per-example init value is an
/// unsupported_batching error, as in JAX.
std::vector<Value> inputs_and_shared_inits(const Op& op, const std::vector<Batched>& xs, int64_t n);
/// emit() with every result batched in front (size `n`, the axis size): the common tail of rules
/// whose results are all per-example.
std::vector<Batched> emit_batched(const Op& op, const std::vector<Value>& operands, int64_t n,
                                  std::vector<NamedAttr> attrs);
/// A region body that replays the per-example region `region` unbatched (reduce bodies,
/// comparators, update computations).
RegionBody unbatched_region(const Block& region, const Op& op);

/// [b] ++ t's dims, t's dtype.
TensorType batched_type(const TensorType& t, int64_t b);
/// `dims` with 1 added to each entry, after `front` entries prepended.
std::vector<int64_t> shifted(const std::vector<int64_t>& dims, std::vector<int64_t> front = {});
/// `v` with `x` in front.
inline std::vector<int64_t> prepend(int64_t x, std::vector<int64_t> v) {
  v.insert(v.begin(), x);
  return v;
}
/// An i64 array attribute of `op` (default `dflt` when absent).
std::vector<int64_t> i64s(const Op& op, std::string_view name, std::vector<int64_t> dflt = {});
/// Sets attribute `name` in `attrs` (replacing it or appending).
void set(std::vector<NamedAttr>& attrs, const std::string& name, Attribute value);
/// Moves axis `from` of `x` to position `to` (transpose).
Value move_axis(Value x, int64_t from, int64_t to);
/// JAX's _reshape_axis_into: moves axis `src` of x in front of the axis that is `dst` once `src`
/// is taken out, and merges the two (src major).
Value axis_into(int64_t src, int64_t dst, Value x);
/// JAX's _reshape_axis_out_of: splits axis `src` of x into (size1, dim / size1).
Value axis_out_of(int64_t src, int64_t size1, Value x);
/// Error for a configuration a batching rule does not handle, naming the op and its location.
[[noreturn]] void unsupported_batching(const Op& op, const std::string& why);

}  // namespace hhlo::ad::detail
