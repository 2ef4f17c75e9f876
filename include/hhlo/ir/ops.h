// Op builders: one free function per StableHLO op, named as in the spec. Each checks its
// operands (same function, visible in the current region), infers result types with the matching
// infer_<op> of hhlo/ir/infer.h (throwing hhlo::ShapeError before anything is appended, so a
// failed call leaves the function unchanged), then appends the op with the caller's source
// location. Ops without operands take the Func to build in.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "hhlo/ir/infer.h"
#include "hhlo/ir/module.h"

namespace hhlo {

/// A host scalar of any C++ arithmetic type, for `constant(f, scalar, dtype)`.
struct Scalar {
  enum class Kind : uint8_t { int_, uint_, float_, bool_ } kind;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  template <typename T>
  requires std::is_arithmetic_v<T> Scalar(T v) {  // NOLINT: implicit by design
    if constexpr (std::is_same_v<T, bool>) {
      kind = Kind::bool_;
      i = v;
    } else if constexpr (std::is_floating_point_v<T>) {
      kind = Kind::float_;
      f = static_cast<double>(v);
    } else if constexpr (std::is_signed_v<T>) {
      kind = Kind::int_;
      i = v;
    } else {
      kind = Kind::uint_;
      u = v;
    }
  }
};

// ---------------------------------------------------------------- constants / creation

/// stablehlo.constant (spec "constant") holding `value` exactly (any dtype, NaN/Inf included).
/// Result: value.type().
Value constant(Func& f, const Array& value, Loc loc = Loc::current());
/// stablehlo.constant of type tensor<dims x dtype> filled with `value` (a splat).
/// Throws ShapeError("constant", "") when `value` is out of range of `dtype` (e.g. 300 for i8,
/// -1 for ui32, 2 for pred, a fraction for an integer type).
Value constant(Func& f, Scalar value, DType dtype, Dims dims = {}, Loc loc = Loc::current());
/// stablehlo.constant from an initializer list: `constant<float>(f, {2, 2}, {1, 2, 3, 4})`.
/// Throws hhlo::Error when the number of values differs from the element count.
template <typename T>
Value constant(Func& f, Dims dims, std::initializer_list<T> values, Loc loc = Loc::current()) {
  return constant(f, Array::from<T>(std::move(dims), values), loc);
}
/// stablehlo.iota (spec "iota"): `type` with values counting along `iota_dimension` (C1).
Value iota(Func& f, const TensorType& type, int64_t iota_dimension, Loc loc = Loc::current());

// ---------------------------------------------------------------- elementwise

/// Elementwise unary op by StableHLO name ("abs", "exponential", ...); see infer_unary.
Value unary(std::string_view op, Value x, Loc loc = Loc::current());
/// Elementwise binary op by StableHLO name ("add", "atan2", ...); see infer_binary. Shapes must
/// match exactly (use hhlo/ops/tensor.h for NumPy broadcasting).
Value binary(std::string_view op, Value lhs, Value rhs, Loc loc = Loc::current());

#define HHLO_UNARY_OP(fn, name) \
  inline Value fn(Value x, Loc loc = Loc::current()) { return unary(name, x, loc); }
#define HHLO_BINARY_OP(fn, name) \
  inline Value fn(Value a, Value b, Loc loc = Loc::current()) { return binary(name, a, b, loc); }
/// Elementwise unary ops (spec sections of the same names); C++ keywords get a trailing `_`.
HHLO_UNARY_OP(abs, "abs")
HHLO_UNARY_OP(cbrt, "cbrt")
HHLO_UNARY_OP(ceil, "ceil")
HHLO_UNARY_OP(cosine, "cosine")
HHLO_UNARY_OP(count_leading_zeros, "count_leading_zeros")
HHLO_UNARY_OP(exp2, "exp2")  // StableHLO 1.23+: 2^x (the plugin gets exponential(x * ln 2))
HHLO_UNARY_OP(exponential, "exponential")
HHLO_UNARY_OP(exponential_minus_one, "exponential_minus_one")
HHLO_UNARY_OP(floor, "floor")
HHLO_UNARY_OP(imag, "imag")
HHLO_UNARY_OP(is_finite, "is_finite")
HHLO_UNARY_OP(log, "log")
HHLO_UNARY_OP(log2, "log2")  // StableHLO 1.23+: log base 2 (the plugin gets log(x) * log2(e))
HHLO_UNARY_OP(log_plus_one, "log_plus_one")
HHLO_UNARY_OP(logistic, "logistic")
HHLO_UNARY_OP(negate, "negate")
HHLO_UNARY_OP(not_, "not")
HHLO_UNARY_OP(popcnt, "popcnt")
HHLO_UNARY_OP(real, "real")
HHLO_UNARY_OP(round_nearest_afz, "round_nearest_afz")
HHLO_UNARY_OP(round_nearest_even, "round_nearest_even")
HHLO_UNARY_OP(rsqrt, "rsqrt")
HHLO_UNARY_OP(sign, "sign")
HHLO_UNARY_OP(sine, "sine")
HHLO_UNARY_OP(sqrt, "sqrt")
HHLO_UNARY_OP(tan, "tan")
HHLO_UNARY_OP(tanh, "tanh")
/// Elementwise binary ops (spec sections of the same names).
HHLO_BINARY_OP(add, "add")
HHLO_BINARY_OP(subtract, "subtract")
HHLO_BINARY_OP(multiply, "multiply")
HHLO_BINARY_OP(divide, "divide")
HHLO_BINARY_OP(remainder, "remainder")
HHLO_BINARY_OP(power, "power")
HHLO_BINARY_OP(maximum, "maximum")
HHLO_BINARY_OP(minimum, "minimum")
HHLO_BINARY_OP(and_, "and")
HHLO_BINARY_OP(or_, "or")
HHLO_BINARY_OP(xor_, "xor")
HHLO_BINARY_OP(atan2, "atan2")
HHLO_BINARY_OP(shift_left, "shift_left")
HHLO_BINARY_OP(shift_right_arithmetic, "shift_right_arithmetic")
HHLO_BINARY_OP(shift_right_logical, "shift_right_logical")
HHLO_BINARY_OP(complex, "complex")
/// stablehlo.fma (spec "fma", StableHLO 1.24+): `a * b + c` elementwise with one rounding; a, b and
/// c of one float or complex type (see infer_fma). The pinned plugin reads StableHLO up to 1.20:
/// the program stage gives it `add(multiply(a, b), c)` (two roundings; docs/facts.md).
Value fma(Value a, Value b, Value c, Loc loc = Loc::current());
#undef HHLO_UNARY_OP
#undef HHLO_BINARY_OP

/// stablehlo.compare (spec "compare"): i1 tensor of lhs's shape. `type` defaults to SIGNED /
/// UNSIGNED / FLOAT from the element type; see infer_compare for the constraints.
Value compare(Value lhs, Value rhs, ComparisonDirection direction,
              std::optional<ComparisonType> type = std::nullopt, Loc loc = Loc::current());
/// stablehlo.select (spec "select"): pred i1 scalar or shaped like on_true.
Value select(Value pred, Value on_true, Value on_false, Loc loc = Loc::current());
/// stablehlo.clamp (spec "clamp"): min/max scalar or shaped like operand.
Value clamp(Value min, Value operand, Value max, Loc loc = Loc::current());
/// stablehlo.convert (spec "convert"): same shape, element type `to`.
Value convert(Value operand, DType to, Loc loc = Loc::current());

// ---------------------------------------------------------------- shape ops

/// stablehlo.broadcast_in_dim (spec "broadcast_in_dim"): operand dim d maps to result dim
/// broadcast_dimensions[d]. Result: tensor<result_dims x dtype>.
Value broadcast_in_dim(Value operand, Dims result_dims, std::vector<int64_t> broadcast_dimensions,
                       Loc loc = Loc::current());
/// stablehlo.reshape (spec "reshape"): same elements, new dims.
Value reshape(Value operand, Dims result_dims, Loc loc = Loc::current());
/// stablehlo.transpose (spec "transpose"): result dim i = operand dim permutation[i].
Value transpose(Value operand, std::vector<int64_t> permutation, Loc loc = Loc::current());
/// stablehlo.slice (spec "slice"); empty `strides` means all ones.
Value slice(Value operand, std::vector<int64_t> start_indices, std::vector<int64_t> limit_indices,
            std::vector<int64_t> strides = {}, Loc loc = Loc::current());
/// stablehlo.concatenate (spec "concatenate") along `dimension`.
Value concatenate(const std::vector<Value>& inputs, int64_t dimension, Loc loc = Loc::current());

// ---------------------------------------------------------------- linear algebra

/// Optional attributes of dot_general.
struct DotOptions {
  /// Empty, or two entries (lhs, rhs).
  std::vector<Precision> precision_config;
  /// Result element type; default: the operands' element type.
  std::optional<DType> preferred_element_type;
};
/// stablehlo.dot_general (spec "dot_general"). Result dims: batch dims, lhs free dims, rhs free.
Value dot_general(Value lhs, Value rhs, const DotDimensionNumbers& dims,
                  const DotOptions& options = {}, Loc loc = Loc::current());

// ---------------------------------------------------------------- reductions

/// stablehlo.reduce (spec "reduce") over `dimensions` of N inputs with N scalar inits. `body`
/// receives 2N scalars (accumulators, then elements) and returns N scalars of the inits' types
/// (C6, else ShapeError). Results: inputs' shape without `dimensions`.
std::vector<Value> reduce(const std::vector<Value>& inputs, const std::vector<Value>& init_values,
                          std::vector<int64_t> dimensions, const RegionBody& body,
                          Loc loc = Loc::current());
/// Single-input reduce: `body(acc, x)` returns the new accumulator.
Value reduce(Value input, Value init_value, std::vector<int64_t> dimensions,
             const std::function<Value(Value, Value)>& body, Loc loc = Loc::current());

// ---------------------------------------------------------------- indexing

/// stablehlo.gather (spec "gather"): slices of `slice_sizes` starting at indices read from
/// `start_indices` (clamped into range). See infer_gather for the result shape and constraints.
/// Unsigned `start_indices` are first clamped (minimum with dim - size per component) and
/// converted to a signed type (ui8 -> i16, ui16 -> i32, ui32/ui64 -> i64): the CPU plugins
/// misread constant unsigned indices (docs/facts.md). The same holds for scatter's
/// `scatter_indices` (converted, no clamping: scatter skips out-of-bounds updates),
/// dynamic_slice's and dynamic_update_slice's start indices.
Value gather(Value operand, Value start_indices, const GatherDimensionNumbers& dims,
             std::vector<int64_t> slice_sizes, bool indices_are_sorted = false,
             Loc loc = Loc::current());
/// stablehlo.sort (spec "sort") of N same-shaped inputs along `dimension`. `comparator`
/// receives 2N scalars (lhs_0, rhs_0, lhs_1, rhs_1, ...) and returns one i1 scalar "lhs before
/// rhs" (C5, else ShapeError). Results: the inputs permuted together.
std::vector<Value> sort(const std::vector<Value>& inputs, int64_t dimension,
                        const RegionBody& comparator, bool is_stable = false,
                        Loc loc = Loc::current());

/// stablehlo.scatter (spec "scatter"): N inputs updated at `scatter_indices` with N `updates`
/// combined by `update_computation` (receives N current values then N update values, all
/// scalars; returns N scalars). Unsigned `scatter_indices` are made signed first (see gather).
/// Results: the inputs' types.
std::vector<Value> scatter(const std::vector<Value>& inputs, Value scatter_indices,
                           const std::vector<Value>& updates, const ScatterDimensionNumbers& dims,
                           const RegionBody& update_computation, bool indices_are_sorted = false,
                           bool unique_indices = false, Loc loc = Loc::current());
/// stablehlo.dynamic_slice (spec "dynamic_slice"): one scalar integer start index per dim
/// (clamped into range at run time; unsigned ones clamped and made signed first, see gather).
/// Result dims: slice_sizes.
Value dynamic_slice(Value operand, const std::vector<Value>& start_indices,
                    std::vector<int64_t> slice_sizes, Loc loc = Loc::current());
/// stablehlo.dynamic_update_slice (spec "dynamic_update_slice"); unsigned start indices are
/// clamped and made signed first (see gather). Result: operand's type.
Value dynamic_update_slice(Value operand, Value update, const std::vector<Value>& start_indices,
                           Loc loc = Loc::current());

// ---------------------------------------------------------------- more shape / type ops

/// stablehlo.pad (spec "pad"): low/high may be negative (cropping), interior >= 0.
Value pad(Value operand, Value padding_value, std::vector<int64_t> edge_padding_low,
          std::vector<int64_t> edge_padding_high, std::vector<int64_t> interior_padding,
          Loc loc = Loc::current());
/// stablehlo.reverse (spec "reverse") along `dimensions`.
Value reverse(Value operand, std::vector<int64_t> dimensions, Loc loc = Loc::current());
/// stablehlo.get_dimension_size (spec "get_dimension_size"): tensor<i32>.
Value get_dimension_size(Value operand, int64_t dimension, Loc loc = Loc::current());
/// stablehlo.bitcast_convert (spec "bitcast_convert"); see infer_bitcast_convert for shapes.
Value bitcast_convert(Value operand, DType to, Loc loc = Loc::current());
/// stablehlo.reduce_precision (spec "reduce_precision") of a float operand.
Value reduce_precision(Value operand, int64_t exponent_bits, int64_t mantissa_bits,
                       Loc loc = Loc::current());

// ---------------------------------------------------------------- NN / linear algebra

/// stablehlo.convolution (spec "convolution") with general dimension numbers, strides, padding,
/// lhs/rhs dilation, window reversal and feature/batch groups; see infer_convolution.
Value convolution(Value lhs, Value rhs, const ConvDimensionNumbers& dims,
                  const ConvOptions& options = {}, Loc loc = Loc::current());
/// stablehlo.batch_norm_inference (spec): normalizes with given mean/variance along
/// `feature_index`. Result: operand's type.
Value batch_norm_inference(Value operand, Value scale, Value offset, Value mean, Value variance,
                           float epsilon, int64_t feature_index, Loc loc = Loc::current());
/// stablehlo.batch_norm_training (spec): results {output, batch_mean, batch_var}.
std::vector<Value> batch_norm_training(Value operand, Value scale, Value offset, float epsilon,
                                       int64_t feature_index, Loc loc = Loc::current());
/// stablehlo.batch_norm_grad (spec): results {grad_operand, grad_scale, grad_offset}.
std::vector<Value> batch_norm_grad(Value operand, Value scale, Value mean, Value variance,
                                   Value grad_output, float epsilon, int64_t feature_index,
                                   Loc loc = Loc::current());
/// Options of triangular_solve.
struct TriangularSolveOptions {
  bool left_side = true, lower = true, unit_diagonal = false;
  Transpose transpose_a = Transpose::NO_TRANSPOSE;
};
/// stablehlo.triangular_solve (spec): solves op(a) x = b (left_side) or x op(a) = b.
Value triangular_solve(Value a, Value b, const TriangularSolveOptions& options = {},
                       Loc loc = Loc::current());
/// stablehlo.cholesky (spec): lower (or upper) Cholesky factor of each trailing square matrix.
Value cholesky(Value a, bool lower = true, Loc loc = Loc::current());
/// stablehlo.fft (spec "fft") over the trailing size(fft_length) dims.
Value fft(Value operand, FftType type, std::vector<int64_t> fft_length, Loc loc = Loc::current());

// ---------------------------------------------------------------- windows / map

/// Window attributes of reduce_window; empty vectors mean strides/dilations 1, padding 0.
struct WindowOptions {
  std::vector<int64_t> window_strides, base_dilations, window_dilations;
  std::vector<std::pair<int64_t, int64_t>> padding;
};
/// stablehlo.reduce_window (spec "reduce_window") of N inputs with N scalar inits; body as in
/// reduce. Results: the number of windows per dim.
std::vector<Value> reduce_window(const std::vector<Value>& inputs,
                                 const std::vector<Value>& init_values,
                                 std::vector<int64_t> window_dimensions,
                                 const WindowOptions& options, const RegionBody& body,
                                 Loc loc = Loc::current());
/// stablehlo.select_and_scatter (spec): `select(a, b)` returns i1 "a is selected over b";
/// `scatter(acc, x)` combines. Result: operand's type.
Value select_and_scatter(Value operand, Value source, Value init_value,
                         std::vector<int64_t> window_dimensions,
                         std::vector<int64_t> window_strides,
                         std::vector<std::pair<int64_t, int64_t>> padding,
                         const std::function<Value(Value, Value)>& select,
                         const std::function<Value(Value, Value)>& scatter,
                         Loc loc = Loc::current());
/// stablehlo.map (spec "map"): applies `computation` (N scalars -> 1 scalar) elementwise to N
/// same-shaped inputs over all dimensions. Result element type: what computation returns (C5).
Value map(const std::vector<Value>& inputs, const RegionBody& computation,
          Loc loc = Loc::current());

// ---------------------------------------------------------------- control flow

/// stablehlo.while (spec "while"): `cond(values)` returns one i1 scalar (C1), `body(values)`
/// returns values of the operands' types (C2). Results: final values.
std::vector<Value> while_loop(const std::vector<Value>& operands, const RegionBody& cond,
                              const RegionBody& body, Loc loc = Loc::current());
/// A branch of if_/case_: no arguments, returns the branch results (may use enclosing values).
using Branch = std::function<std::vector<Value>()>;
/// stablehlo.if (spec "if"): pred is tensor<i1>; both branches return the same types (C2).
std::vector<Value> if_(Value pred, const Branch& true_branch, const Branch& false_branch,
                       Loc loc = Loc::current());
/// stablehlo.case (spec "case"): index tensor<i32>; out-of-range indices run the last branch.
/// (C1) at least one branch, (C3) all branches return the same types.
std::vector<Value> case_(Value index, const std::vector<Branch>& branches,
                         Loc loc = Loc::current());
/// stablehlo.optimization_barrier (spec): results equal the operands; blocks reordering.
std::vector<Value> optimization_barrier(const std::vector<Value>& operands,
                                        Loc loc = Loc::current());

// ---------------------------------------------------------------- RNG

/// stablehlo.rng (spec "rng"): UNIFORM in [a, b) or NORMAL(mean a, stddev b), of dims `shape`.
Value rng(Value a, Value b, const Dims& shape, RngDistribution distribution,
          Loc loc = Loc::current());
/// stablehlo.rng_bit_generator (spec): returns {new_state, random bits of `output`'s type}.
std::vector<Value> rng_bit_generator(Value initial_state, RngAlgorithm algorithm,
                                     const TensorType& output, Loc loc = Loc::current());

// ---------------------------------------------------------------- custom calls

/// Attributes of custom_call.
struct CustomCallOptions {
  /// 1..3: legacy ABI, backend_config is a string; 4: typed FFI, backend_config a dictionary.
  int api_version = 4;
  /// A string (api_version 1..3) or a DictAttr (api_version 4).
  std::variant<std::string, DictAttr> backend_config = DictAttr{};
  bool has_side_effect = false;
  /// Minor-to-major layouts, one per operand / result; both empty or both given.
  std::vector<std::vector<int64_t>> operand_layouts, result_layouts;
};
/// stablehlo.custom_call (spec "custom_call") of `target` with `result_types`. Throws
/// ShapeError("custom_call", "") for api_version outside 1..4, a backend_config kind that does not
/// match the version, or layouts of the wrong count or not permutations.
std::vector<Value> custom_call(Func& f, std::string target, const std::vector<Value>& operands,
                               const std::vector<TensorType>& result_types,
                               const CustomCallOptions& options = {}, Loc loc = Loc::current());

// ---------------------------------------------------------------- collectives

/// Attributes of all_reduce, all_gather and reduce_scatter that choose the process groups (spec
/// "all_reduce", Semantics): no channel handle (or handle <= 0) and use_global_device_ids false:
/// `cross_replica`; a channel handle > 0: `cross_replica_and_partition`, with
/// use_global_device_ids: `flattened_ids` (replica_groups hold global device ids; what JAX's
/// shard_map writes: `handle = 1, type = 1`).
struct CollectiveOptions {
  std::optional<ChannelHandle> channel_handle;
  bool use_global_device_ids = false;
};
/// stablehlo.all_reduce (spec "all_reduce") of N operands of one element type E over each process
/// group: `computation` receives two tensor<E> scalars and returns one (C5). Results: the operand
/// types. See infer_all_reduce; empty `replica_groups` means one group of every process.
std::vector<Value> all_reduce(const std::vector<Value>& operands,
                              const ReplicaGroups& replica_groups, const RegionBody& computation,
                              const CollectiveOptions& options = {}, Loc loc = Loc::current());
/// Single-operand all_reduce: `computation(a, b)` returns the combined scalar.
Value all_reduce(Value operand, const ReplicaGroups& replica_groups,
                 const std::function<Value(Value, Value)>& computation,
                 const CollectiveOptions& options = {}, Loc loc = Loc::current());
/// stablehlo.all_gather (spec "all_gather"): each process's operands concatenated along
/// `all_gather_dim` in group order. Result dim all_gather_dim: operand's times the group size.
std::vector<Value> all_gather(const std::vector<Value>& operands, int64_t all_gather_dim,
                              const ReplicaGroups& replica_groups,
                              const CollectiveOptions& options = {}, Loc loc = Loc::current());
/// Single-operand all_gather.
Value all_gather(Value operand, int64_t all_gather_dim, const ReplicaGroups& replica_groups,
                 const CollectiveOptions& options = {}, Loc loc = Loc::current());
/// stablehlo.reduce_scatter (spec "reduce_scatter"): all_reduce with `computation`, then process
/// i of its group keeps part i of the result split along `scatter_dimension`. Result: that dim
/// divided by the group size.
Value reduce_scatter(Value operand, int64_t scatter_dimension, const ReplicaGroups& replica_groups,
                     const std::function<Value(Value, Value)>& computation,
                     const CollectiveOptions& options = {}, Loc loc = Loc::current());
/// stablehlo.all_to_all (spec "all_to_all"): operands split into split_count parts along
/// `split_dimension`, part i sent to process i of the group, received parts concatenated along
/// `concat_dimension`. A channel handle > 0 makes the groups partition ids (cross_partition).
std::vector<Value> all_to_all(const std::vector<Value>& operands, int64_t split_dimension,
                              int64_t concat_dimension, int64_t split_count,
                              const ReplicaGroups& replica_groups,
                              std::optional<ChannelHandle> channel_handle = std::nullopt,
                              Loc loc = Loc::current());
/// Single-operand all_to_all.
Value all_to_all(Value operand, int64_t split_dimension, int64_t concat_dimension,
                 int64_t split_count, const ReplicaGroups& replica_groups,
                 std::optional<ChannelHandle> channel_handle = std::nullopt,
                 Loc loc = Loc::current());
/// stablehlo.collective_permute (spec "collective_permute"): process `target` receives the
/// operand of `source` for each (source, target) pair, processes no pair targets get zeros. A
/// channel handle > 0 makes the ids partition ids. Result: operand's type.
Value collective_permute(Value operand,
                         const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
                         std::optional<ChannelHandle> channel_handle = std::nullopt,
                         Loc loc = Loc::current());
/// stablehlo.collective_broadcast (spec "collective_broadcast"): every process of a group gets
/// the operand of the group's first process; processes in no group get zeros. Result: operand's
/// type. The CPU plugins do not implement it (docs/facts.md, "Multi-device").
Value collective_broadcast(Value operand, const ReplicaGroups& replica_groups,
                           std::optional<ChannelHandle> channel_handle = std::nullopt,
                           Loc loc = Loc::current());
/// stablehlo.replica_id (spec "replica_id"): tensor<ui32>, the replica of the running process.
Value replica_id(Func& f, Loc loc = Loc::current());
/// stablehlo.partition_id (spec "partition_id"): tensor<ui32>, its partition.
Value partition_id(Func& f, Loc loc = Loc::current());

// ---------------------------------------------------------------- functions

/// func.call of `callee` (same Module, must have returned). Throws ShapeError("call", "") when
/// argument types differ from callee's parameters. Results: callee's result types.
std::vector<Value> call(const Func& callee, const std::vector<Value>& args,
                        Loc loc = Loc::current());

/// stablehlo.composite (spec "composite"): an op named `name` (namespaced, "dialect.op", (C1))
/// whose meaning is function `decomposition` (same Module (C2), returned, typically private)
/// applied to `inputs` (types equal to its parameters (C3)). Results: the decomposition's result
/// types (C4). `composite_attributes` and `version` describe the op for rules keyed on its name
/// (autodiff "composite:<name>", vmap); XLA compiles the decomposition (it inlines composites it
/// does not know). Throws ShapeError("composite", "C1"/"C3") for a bad name or input types, and
/// hhlo::Error for no inputs, a decomposition of another Module or one that has not returned.
std::vector<Value> composite(std::string name, const std::vector<Value>& inputs,
                             const Func& decomposition, DictAttr composite_attributes = {},
                             int32_t version = 0, Loc loc = Loc::current());

/// Every op name this builder emits ("stablehlo.add", ..., "func.call"), sorted. The op-execution
/// tests (tests/ops_exec) check that each is compiled and executed on the CPU plugin.
std::vector<std::string_view> supported_ops();

namespace detail {
/// The function all `operands` belong to (checked: valid, same function, visible). Throws
/// hhlo::Error naming both functions on a mix.
Func& func_of(std::string_view op, std::span<const Value> operands);
/// Operand types.
std::vector<TensorType> types_of(std::span<const Value> values);
/// The types of an op's operands or results.
std::vector<TensorType> types_of(const ValueRange& values);
}  // namespace detail

}  // namespace hhlo
