// Fuzz target: the builders' shape rules (hhlo/ir/ops.h, hhlo/ir/infer.h), the collectives and
// sdy.sharding_constraint (hhlo/ir/spmd.h) included. The input chooses an op, its operand types
// (often related to one another, so multi-operand rules are reached) and its attribute values
// (mostly small, sometimes extreme; replica groups, pairs, channel handles and meshes too).
// Properties: the builder returns values or throws ShapeError (ShardingError for a sharding that
// does not fit, the error sharding_constraint documents), nothing else; a function it built is
// accepted by the verifier, and its printed text parses back with the verifier on.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "fuzz.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/spmd.h"
#include "hhlo/ir/verifier.h"

namespace hhlo::fuzz {
namespace {

int64_t attr_int(Bytes& b) {
  switch (b.below(16)) {
    case 0:
      return std::numeric_limits<int64_t>::max();
    case 1:
      return std::numeric_limits<int64_t>::min();
    case 2:
      return int64_t{1} << 40;
    case 3:
      return -int64_t{1} << 33;
    default:
      return b.range(-2, 5);
  }
}

std::vector<int64_t> attr_ints(Bytes& b, size_t max = 5) {
  std::vector<int64_t> v(b.below(max + 1));
  for (int64_t& x : v) x = attr_int(b);
  return v;
}

int64_t dim(Bytes& b) {
  switch (b.below(24)) {
    case 0:
      return kDynamic;
    case 1:
      return int64_t{1} << 31;
    case 2:
      return int64_t{1} << 62;
    default:
      return b.range(0, 4);
  }
}

DType dtype(Bytes& b) {
  // Integers (indices) and f32 twice as often as the rest.
  static constexpr DType kPick[] = {DType::i32, DType::i64, DType::f32, DType::i32,
                                    DType::f32, DType::f64, DType::c64, DType::pred};
  return b.flag() ? kPick[b.below(std::size(kPick))]
                  : kClassicDTypes[b.below(std::size(kClassicDTypes))];
}

/// Operand types: each either fresh, or a previous one's (possibly with another element type or
/// one dimension changed), so related operands are common.
std::vector<TensorType> operand_types(Bytes& b, size_t n) {
  std::vector<TensorType> out;
  for (size_t i = 0; i < n; ++i) {
    if (!out.empty() && b.below(4) != 0) {
      TensorType t = out[b.below(out.size())];
      switch (b.below(4)) {
        case 0:
          t.dtype = dtype(b);
          break;
        case 1:
          if (!t.dims.empty()) t.dims[b.below(t.dims.size())] = dim(b);
          break;
        case 2:
          t.dims.clear();
          break;  // a scalar of that element type
        default:
          break;
      }
      out.push_back(t);
      continue;
    }
    TensorType t;
    t.dtype = dtype(b);
    t.dims.resize(b.below(5));
    for (int64_t& d : t.dims) d = dim(b);
    out.push_back(t);
  }
  return out;
}

template <typename E>
E pick_enum(Bytes& b, size_t count) {
  return static_cast<E>(b.below(count));
}

/// A region body returning `n` of its arguments starting at `first` (wrong types on purpose when
/// the fuzzer chooses so).
RegionBody returning(size_t first, size_t n) {
  return [first, n](const std::vector<Value>& args) {
    std::vector<Value> out;
    for (size_t i = 0; i < n && first + i < args.size(); ++i) out.push_back(args[first + i]);
    if (out.empty() && !args.empty()) out.push_back(args[0]);
    return out;
  };
}

/// Within what the parser reads back (src/ir/text/parser_types.cc): dimensions up to 2^48, element
/// counts up to 2^56. The builders accept larger types (e.g. a dimension 2^62); the printed text
/// of those is not expected to parse.
bool parser_reads_back(const std::vector<TensorType>& types) {
  for (const TensorType& t : types) {
    int64_t n = 1;
    for (int64_t d : t.dims)
      if (d != kDynamic && (d > (int64_t{1} << 48) || __builtin_mul_overflow(n, d, &n)))
        return false;
    if (n > (int64_t{1} << 56)) return false;
  }
  return true;
}

/// Replica groups: mostly well-formed over up to 4 processes, sometimes ragged, repeated,
/// negative or empty.
ReplicaGroups groups(Bytes& b) {
  ReplicaGroups g;
  size_t n = b.below(4);
  size_t width = 1 + b.below(4);
  for (size_t i = 0; i < n; ++i) {
    std::vector<int64_t> grp;
    size_t w = b.below(6) == 0 ? b.below(5) : width;
    for (size_t k = 0; k < w; ++k) grp.push_back(b.below(8) == 0 ? attr_int(b) : b.range(0, 7));
    g.groups.push_back(grp);
  }
  return g;
}

std::optional<ChannelHandle> channel(Bytes& b) {
  if (b.flag()) return std::nullopt;
  return ChannelHandle{b.range(-1, 3), b.range(0, 3)};
}

CollectiveOptions collective_options(Bytes& b) { return {channel(b), b.flag()}; }

std::vector<std::pair<int64_t, int64_t>> pairs(Bytes& b) {
  std::vector<std::pair<int64_t, int64_t>> out(b.below(5));
  for (auto& p : out)
    p = b.below(8) == 0 ? std::pair{attr_int(b), attr_int(b)}
                        : std::pair{b.range(0, 4), b.range(0, 4)};
  return out;
}

/// A sharding of `rank` dimensions over the axes "x" (2) and "y" (2) of the module's mesh @mesh,
/// sometimes with an unknown, repeated or extra axis.
Sharding sharding(Bytes& b, size_t rank) {
  static const char* kAxes[] = {"x", "y", "z"};
  Sharding s;
  s.dims.resize(b.below(8) == 0 ? b.below(4) : rank);
  for (auto& d : s.dims)
    for (size_t k = b.below(3); k > 0; --k) d.push_back(kAxes[b.below(b.below(8) == 0 ? 3 : 2)]);
  return s;
}

/// A dimension or count of a collective: mostly small (0..3), sometimes any attr_int.
int64_t small_int(Bytes& b) { return b.below(8) == 0 ? attr_int(b) : b.range(0, 3); }

auto add_fn() {
  return [](Value x, Value y) { return add(x, y); };
}

/// The collectives and sdy.sharding_constraint (chosen by the input after the other ops).
std::vector<Value> build_spmd(Bytes& b, Module& m, Func& f, const std::vector<Value>& v) {
  auto at = [&](size_t i) { return v[i % v.size()]; };
  auto some = [&](size_t n) {
    std::vector<Value> out;
    for (size_t i = 0; i < n; ++i) out.push_back(at(i));
    return out;
  };
  switch (b.below(9)) {
    case 0:
      return all_reduce(some(1 + b.below(2)), groups(b), returning(b.below(2), 1),
                        collective_options(b));
    case 1:
      return all_gather(some(1 + b.below(2)), small_int(b), groups(b), collective_options(b));
    case 2:
      return {reduce_scatter(at(0), small_int(b), groups(b), add_fn(), collective_options(b))};
    case 3:
      return all_to_all(some(1 + b.below(2)), small_int(b), small_int(b), small_int(b), groups(b),
                        channel(b));
    case 4:
      return {collective_permute(at(0), pairs(b), channel(b))};
    case 5:
      return {collective_broadcast(at(0), groups(b), channel(b))};
    case 6:
      return {replica_id(f)};
    case 7:
      return {partition_id(f)};
    default:
      return {sharding_constraint(
          m, at(0), b.below(8) ? "mesh" : "other",
          sharding(b, static_cast<size_t>(std::max<int64_t>(0, at(0).rank()))))};
  }
}

std::vector<Value> build(Bytes& b, Module& m, Func& f, const std::vector<Value>& v) {
  auto at = [&](size_t i) { return v[i % v.size()]; };
  auto some = [&](size_t from, size_t n) {
    std::vector<Value> out;
    for (size_t i = 0; i < n; ++i) out.push_back(at(from + i));
    return out;
  };
  size_t n = v.size();
  switch (b.below(37)) {
    case 0: {
      auto names = elementwise_op_names(1);
      return {unary(names[b.below(names.size())], at(0))};
    }
    case 1: {
      auto names = elementwise_op_names(2);
      return {binary(names[b.below(names.size())], at(0), at(1))};
    }
    case 2: {
      std::optional<ComparisonType> t;
      if (b.flag()) t = pick_enum<ComparisonType>(b, 5);
      return {compare(at(0), at(1), pick_enum<ComparisonDirection>(b, 6), t)};
    }
    case 3:
      return {select(at(0), at(1), at(2))};
    case 4:
      return {clamp(at(0), at(1), at(2))};
    case 5:
      return {convert(at(0), dtype(b))};
    case 6: {
      TensorType t = at(0).type();
      return {iota(f, t, attr_int(b))};
    }
    case 7: {
      Dims d = at(1).dims();
      return {broadcast_in_dim(at(0), d, attr_ints(b))};
    }
    case 8:
      return {reshape(at(0), at(1).dims())};
    case 9:
      return {transpose(at(0), attr_ints(b))};
    case 10:
      return {slice(at(0), attr_ints(b), attr_ints(b), attr_ints(b))};
    case 11:
      return {concatenate(some(0, n), attr_int(b))};
    case 12: {
      DotDimensionNumbers d{attr_ints(b, 2), attr_ints(b, 2), attr_ints(b, 2), attr_ints(b, 2)};
      DotOptions o;
      if (b.flag()) o.precision_config.resize(b.below(3));
      if (b.flag()) o.preferred_element_type = dtype(b);
      return {dot_general(at(0), at(1), d, o)};
    }
    case 13: {
      size_t k = 1 + b.below(2);
      return reduce(some(0, k), some(k, k), attr_ints(b), returning(b.below(2 * k), k));
    }
    case 14: {
      GatherDimensionNumbers d{attr_ints(b, 3), attr_ints(b, 3), attr_ints(b, 2),
                               attr_ints(b, 2), attr_ints(b, 3), attr_int(b)};
      return {gather(at(0), at(1), d, attr_ints(b), b.flag())};
    }
    case 15: {
      size_t k = 1 + b.below(2);
      RegionBody cmp = [&b](const std::vector<Value>& args) -> std::vector<Value> {
        if (b.flag() || args.size() < 2) return {args[0]};
        return {compare(args[0], args[1], ComparisonDirection::LT)};
      };
      return sort(some(0, k), attr_int(b), cmp, b.flag());
    }
    case 16: {
      size_t k = 1 + b.below(2);
      ScatterDimensionNumbers d{attr_ints(b, 3), attr_ints(b, 3), attr_ints(b, 2),
                                attr_ints(b, 2), attr_ints(b, 3), attr_int(b)};
      return scatter(some(0, k), at(k), some(k + 1, k), d, returning(b.below(2 * k), k), b.flag(),
                     b.flag());
    }
    case 17:
      return {dynamic_slice(at(0), some(1, b.below(4)), attr_ints(b))};
    case 18:
      return {dynamic_update_slice(at(0), at(1), some(2, b.below(4)))};
    case 19:
      return {pad(at(0), at(1), attr_ints(b), attr_ints(b), attr_ints(b))};
    case 20:
      return {reverse(at(0), attr_ints(b))};
    case 21:
      return {get_dimension_size(at(0), attr_int(b))};
    case 22:
      return {bitcast_convert(at(0), dtype(b))};
    case 23:
      return {reduce_precision(at(0), attr_int(b), attr_int(b))};
    case 24: {
      ConvDimensionNumbers d;
      d.input_batch_dimension = attr_int(b);
      d.input_feature_dimension = attr_int(b);
      d.input_spatial_dimensions = attr_ints(b, 2);
      d.kernel_input_feature_dimension = attr_int(b);
      d.kernel_output_feature_dimension = attr_int(b);
      d.kernel_spatial_dimensions = attr_ints(b, 2);
      d.output_batch_dimension = attr_int(b);
      d.output_feature_dimension = attr_int(b);
      d.output_spatial_dimensions = attr_ints(b, 2);
      ConvOptions o;
      if (b.flag()) o.window_strides = attr_ints(b, 2);
      if (b.flag())
        for (size_t i = b.below(3); i > 0; --i) o.padding.emplace_back(attr_int(b), attr_int(b));
      if (b.flag()) o.lhs_dilation = attr_ints(b, 2);
      if (b.flag()) o.rhs_dilation = attr_ints(b, 2);
      if (b.flag()) o.window_reversal.resize(b.below(3), b.flag());
      if (b.flag()) o.feature_group_count = attr_int(b);
      if (b.flag()) o.batch_group_count = attr_int(b);
      if (b.flag()) o.precision_config.resize(b.below(3));
      if (b.flag()) o.preferred_element_type = dtype(b);
      return {convolution(at(0), at(1), d, o)};
    }
    case 25:
      return {batch_norm_inference(at(0), at(1), at(2), at(3), at(4), 1e-3f, attr_int(b))};
    case 26:
      return batch_norm_training(at(0), at(1), at(2), 1e-3f, attr_int(b));
    case 27:
      return batch_norm_grad(at(0), at(1), at(2), at(3), at(4), 1e-3f, attr_int(b));
    case 28: {
      TriangularSolveOptions o{b.flag(), b.flag(), b.flag(), pick_enum<Transpose>(b, 3)};
      return {triangular_solve(at(0), at(1), o)};
    }
    case 29:
      return {cholesky(at(0), b.flag())};
    case 30:
      return {fft(at(0), pick_enum<FftType>(b, 4), attr_ints(b, 3))};
    case 31: {
      size_t k = 1 + b.below(2);
      WindowOptions o;
      if (b.flag()) o.window_strides = attr_ints(b);
      if (b.flag()) o.base_dilations = attr_ints(b);
      if (b.flag()) o.window_dilations = attr_ints(b);
      if (b.flag())
        for (size_t i = b.below(5); i > 0; --i) o.padding.emplace_back(attr_int(b), attr_int(b));
      return reduce_window(some(0, k), some(k, k), attr_ints(b), o, returning(b.below(2 * k), k));
    }
    case 32: {
      std::vector<std::pair<int64_t, int64_t>> padding;
      if (b.flag())
        for (size_t i = b.below(5); i > 0; --i) padding.emplace_back(attr_int(b), attr_int(b));
      bool good_select = b.flag();
      auto select = [good_select](Value x, Value y) {
        return good_select ? compare(x, y, ComparisonDirection::GE) : x;
      };
      auto scatter_fn = [](Value x, Value y) { return add(x, y); };
      return {select_and_scatter(at(0), at(1), at(2), attr_ints(b), attr_ints(b), padding, select,
                                 scatter_fn)};
    }
    case 33:
      return {map(some(0, 1 + b.below(2)), returning(b.below(2), 1))};
    case 34:
      return {rng(at(0), at(1), at(2).dims(), pick_enum<RngDistribution>(b, 2))};
    case 35:
      return rng_bit_generator(at(0), pick_enum<RngAlgorithm>(b, 3), at(1).type());
    default:
      // Kept at 36 so that saved inputs choosing 0..35 still build what they built.
      if (b.flag()) return build_spmd(b, m, f, v);
      return optimization_barrier(some(0, 1 + b.below(3)));
  }
}

}  // namespace

int shape_rules(const uint8_t* data, size_t size) {
  Bytes b(data, size);
  Module m;
  m.add_mesh("mesh", Mesh{{{"x", 2}, {"y", 2}}, {}});
  std::vector<TensorType> types = operand_types(b, 1 + b.below(6));
  Func& f = m.add_func("main", types);
  std::vector<Value> args;
  for (size_t i = 0; i < types.size(); ++i) args.push_back(f.arg(i));
  std::vector<Value> results;
  try {
    results = build(b, m, f, args);
  } catch (const ShapeError&) {
    return 0;
  } catch (const ShardingError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail("shape_rules",
              std::string("a builder threw something else than ShapeError: ") + e.what());
  }
  std::string printed;
  try {
    f.ret(results);
    verify(m);
    printed = to_mlir(m);
  } catch (const std::exception& e) {
    fuzz_fail("shape_rules",
              std::string("the verifier rejects what the builder built: ") + e.what());
  }
  std::vector<TensorType> all = types;
  for (const Value& r : results) all.push_back(r.type());
  if (!parser_reads_back(all)) return 0;
  try {
    parse_module(printed, {.source_name = "<printed>"});
  } catch (const std::exception& e) {
    fuzz_fail("shape_rules", std::string("the printed module does not parse back: ") + e.what() +
                                 "\n--- printed:\n" + printed);
  }
  return 0;
}

}  // namespace hhlo::fuzz
