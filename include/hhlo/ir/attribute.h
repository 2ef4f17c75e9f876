// Typed op attributes: the closed set StableHLO ops carry (spec "Ops" sections list each op's
// attributes). Every typed form here is printed by ir/printer.h in a syntax both pinned CPU plugins
// (StableHLO 1.13 and 1.20) parse. The one raw-text kind, OpaqueAttr, exists only for attributes
// read from a file that have no typed form here (mhlo.sharding dictionaries, sdy.*, unknown
// dialects): they are kept as written and printed back verbatim. Builders never create one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/core/dtype.h"
#include "hhlo/core/sharding.h"
#include "hhlo/ir/interned.h"

namespace hhlo {

/// compare's `comparison_direction` (spec "compare").
enum class ComparisonDirection : uint8_t { EQ, NE, GE, GT, LE, LT };
/// compare's `compare_type` (spec "compare", C3).
enum class ComparisonType : uint8_t { NOTYPE, FLOAT, TOTALORDER, SIGNED, UNSIGNED };
/// dot_general/convolution `precision_config` entries.
enum class Precision : uint8_t { DEFAULT, HIGH, HIGHEST };
/// rng `rng_distribution`.
enum class RngDistribution : uint8_t { UNIFORM, NORMAL };
/// rng_bit_generator `rng_algorithm`.
enum class RngAlgorithm : uint8_t { DEFAULT, THREE_FRY, PHILOX };
/// fft `fft_type`.
enum class FftType : uint8_t { FFT, IFFT, RFFT, IRFFT };
/// triangular_solve `transpose_a`.
enum class Transpose : uint8_t { NO_TRANSPOSE, TRANSPOSE, ADJOINT };

/// Spelling of an enum value as StableHLO prints it ("LT", "THREE_FRY", ...).
std::string_view enum_name(ComparisonDirection v);
std::string_view enum_name(ComparisonType v);
std::string_view enum_name(Precision v);
std::string_view enum_name(RngDistribution v);
std::string_view enum_name(RngAlgorithm v);
std::string_view enum_name(FftType v);
std::string_view enum_name(Transpose v);

/// `#stablehlo.dot<...>` (spec "dot_general").
struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batching_dimensions, rhs_batching_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions, rhs_contracting_dimensions;
  bool operator==(const DotDimensionNumbers&) const = default;
};

/// `#stablehlo.conv<...>` (spec "convolution"): which dimension of input, kernel and output is
/// batch / feature / spatial.
struct ConvDimensionNumbers {
  int64_t input_batch_dimension = 0, input_feature_dimension = 1;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0, kernel_output_feature_dimension = 1;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0, output_feature_dimension = 1;
  std::vector<int64_t> output_spatial_dimensions;
  bool operator==(const ConvDimensionNumbers&) const = default;
};

/// `#stablehlo.gather<...>` (spec "gather"), batching dims included.
struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims, collapsed_slice_dims, operand_batching_dims,
      start_indices_batching_dims, start_index_map;
  int64_t index_vector_dim = 0;
  bool operator==(const GatherDimensionNumbers&) const = default;
};

/// `#stablehlo.scatter<...>` (spec "scatter"), batching dims included.
struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims, inserted_window_dims, input_batching_dims,
      scatter_indices_batching_dims, scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const ScatterDimensionNumbers&) const = default;
};

/// `#stablehlo.channel_handle<handle = H, type = T>` of the collective ops (spec "all_gather"
/// etc.: `channel_id` is `handle`; `type` is XLA's ChannelType, 0 invalid, 1 device-to-device,
/// 2 device-to-host, 3 host-to-device; JAX writes type 1 for collectives across partitions).
struct ChannelHandle {
  int64_t handle = 0;
  int64_t type = 0;
  bool operator==(const ChannelHandle&) const = default;
};

/// `replica_groups` of the collective ops (spec "all_reduce", "all_gather", ...): groups of
/// process ids, all of one size, printed `dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>` (a
/// DenseAttr). Also the `source_target_pairs` of collective_permute (rows of two).
struct ReplicaGroups {
  std::vector<std::vector<int64_t>> groups;
  bool operator==(const ReplicaGroups&) const = default;
};

class Attribute;

/// A heap-held T with value semantics (copying copies the T): the attribute variant holds the big,
/// rare structs (dimension numbers, shardings) through one of these, so every other attribute stays
/// small. `Attribute::get_if<T>()` sees through it. A moved-from Boxed holds nothing.
template <typename T>
class Boxed {
 public:
  Boxed(T v) : p_(std::make_unique<T>(std::move(v))) {}  // NOLINT: implicit by design
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  const T* get() const { return p_.get(); }
  T* get() { return p_.get(); }
  const T& operator*() const { return *p_; }
  T& operator*() { return *p_; }
  const T* operator->() const { return p_.get(); }
  T* operator->() { return p_.get(); }

 private:
  std::unique_ptr<T> p_;
};

/// Integer attribute printed `5 : i64` (type is the MLIR integer type: i1..i64, ui*).
struct IntAttr {
  int64_t value = 0;
  DType type = DType::i64;
};
/// Float attribute printed `1.0e-05 : f32` (exact; NaN/Inf as hex bits).
struct FloatAttr {
  double value = 0;
  DType type = DType::f32;
};
/// `true` / `false`.
struct BoolAttr {
  bool value = false;
};
/// MLIR's unit attribute: the key alone (`use_global_device_ids`), printed `key = unit`.
struct UnitAttr {};
/// `"text"` (escaped).
struct StringAttr {
  std::string value;
};
/// `array<i64: 1, 2>` (MLIR DenseI64ArrayAttr).
struct I64ArrayAttr {
  std::vector<int64_t> values;
};
/// `array<i1: true, false>` (MLIR DenseBoolArrayAttr).
struct BoolArrayAttr {
  std::vector<bool> values;
};
/// `dense<...> : tensor<...>` holding a host array (exact for every dtype).
struct DenseAttr {
  std::shared_ptr<const Array> array;
};
/// `@name` (callee of func.call).
struct SymbolRefAttr {
  std::string name;
};
/// `[dense<[1, 0]> : tensor<2xindex>, ...]`: custom_call operand/result layouts (minor-to-major).
struct LayoutsAttr {
  std::vector<std::vector<int64_t>> layouts;
};
/// `[a, b, ...]`.
struct ArrayAttr {
  std::vector<Attribute> values;
};
/// `{a = ..., b = ...}` (keys printed sorted).
struct DictAttr {
  std::vector<std::pair<std::string, Attribute>> entries;
};

/// A Shardy sharding of one value over the module's mesh `mesh` (`Module::add_mesh`), printed
/// `#sdy.sharding<@mesh, [{"x"}, {}]>`: on entry arguments and results as `sdy.sharding`, which
/// XLA's SPMD partitioner (CompileOptions::use_shardy_partitioner) reads.
struct ShardingAttr {
  std::string mesh;
  Sharding sharding;
};

/// The shardings of several values, printed `#sdy.sharding_per_value<[<@mesh, [{"x"}]>, ...]>`:
/// `in_shardings` / `out_shardings` of sdy.manual_computation (JAX's shard_map in/out specs).
struct ShardingPerValueAttr {
  std::vector<ShardingAttr> shardings;
};
/// The mesh axes a manual computation is manual over, printed `#sdy<manual_axes{"x", "y"}>`.
struct ManualAxesAttr {
  std::vector<std::string> axes;
};

/// An attribute kept as its MLIR text, printed back verbatim (parser only; see the file comment):
/// `#sdy.sharding<@mesh, [{}]>`, `unit`, `0 : index`, `array<i32: 1>`, ...
struct OpaqueAttr {
  std::string text;
};

/// One attribute value: a closed variant of the kinds above plus the StableHLO enums and
/// dimension-number structs. The dimension-number structs, ShardingAttr and BoolArrayAttr are held
/// boxed (`Boxed<T>` alternatives of the variant), which keeps an Attribute at 40 bytes; construct
/// from and `get_if` the plain struct as for any other kind.
class Attribute {
 public:
  using Variant =
      std::variant<IntAttr, FloatAttr, BoolAttr, UnitAttr, StringAttr, I64ArrayAttr,
                   Boxed<BoolArrayAttr>, DenseAttr, SymbolRefAttr, LayoutsAttr, ArrayAttr, DictAttr,
                   ComparisonDirection, ComparisonType, Precision, RngDistribution, RngAlgorithm,
                   FftType, Transpose, Boxed<DotDimensionNumbers>, Boxed<ConvDimensionNumbers>,
                   Boxed<GatherDimensionNumbers>, Boxed<ScatterDimensionNumbers>, ChannelHandle,
                   Boxed<ShardingAttr>, ShardingPerValueAttr, ManualAxesAttr, OpaqueAttr>;
  template <typename T>
  requires std::is_constructible_v<Variant, T&&> Attribute(T&& v)
      : v_(std::forward<T>(v)) {}  // NOLINT: implicit by design
  /// The variant; the boxed kinds appear as `Boxed<T>` alternatives here.
  const Variant& variant() const { return v_; }
  Variant& variant() { return v_; }
  /// The value if it is of kind T (boxed kinds included: `get_if<DotDimensionNumbers>()`), else
  /// nullptr.
  template <typename T>
  const T* get_if() const {
    if constexpr (kBoxed<T>) {
      const Boxed<T>* b = std::get_if<Boxed<T>>(&v_);
      return b ? b->get() : nullptr;
    } else {
      return std::get_if<T>(&v_);
    }
  }

 private:
  template <typename T>
  static constexpr bool kBoxed =
      std::is_same_v<T, BoolArrayAttr> || std::is_same_v<T, DotDimensionNumbers> ||
      std::is_same_v<T, ConvDimensionNumbers> || std::is_same_v<T, GatherDimensionNumbers> ||
      std::is_same_v<T, ScatterDimensionNumbers> || std::is_same_v<T, ShardingAttr>;
  Variant v_;
};

/// A named attribute of an op (`dimensions = array<i64: 1>`).
/// The name is interned (IString: read it like a `const std::string&`): a module repeats a few
/// dozen attribute names thousands of times.
struct NamedAttr {
  IString name;
  Attribute value;
};

/// Convenience constructors.
inline Attribute i64_attr(int64_t v) { return IntAttr{v, DType::i64}; }
inline Attribute i32_attr(int64_t v) { return IntAttr{v, DType::i32}; }
inline Attribute i64_array(std::vector<int64_t> v) { return I64ArrayAttr{std::move(v)}; }
inline Attribute dense_attr(Array a) {
  return DenseAttr{std::make_shared<const Array>(std::move(a))};
}

/// `dense<...> : tensor<N x M x i64>` of `g` (N groups of M ids; tensor<0x0xi64> when empty).
/// Throws hhlo::Error when the groups differ in size.
Attribute replica_groups_attr(const ReplicaGroups& g);
/// The groups held by a dense i64 rank-2 attribute; nullopt for any other attribute.
std::optional<ReplicaGroups> replica_groups_of(const Attribute& a);

/// `sdy.sharding = #sdy.sharding<@mesh, ...>` for Func::set_arg_attr / set_result_attr.
inline NamedAttr sdy_sharding(std::string mesh, Sharding sharding) {
  return {"sdy.sharding", ShardingAttr{std::move(mesh), std::move(sharding)}};
}

/// MLIR text of an attribute value (used by the printer and in error messages).
std::string to_string(const Attribute& a);

}  // namespace hhlo
