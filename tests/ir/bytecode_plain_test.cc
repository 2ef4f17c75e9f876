// Plain MLIR bytecode of StableHLO (issue 41: what `write_bytecode` of a JAX lowering,
// TensorFlow's `stablehlo_serialized` and torch_xla's `forward.bytecode` hold, not a VHLO portable
// artifact), made at build time by tests/ir/gen_plain_bytecode.py with both JAX releases:
// print(read_bytecode(b)) == print(parse_module(t)) with locations for jaxlib's own print of each
// module; the reader's property layouts (src/ir/bytecode/bytecode_stablehlo_props.cc, the stablehlo
// ones built from src/ir/op_attributes.cc) against jaxlib's op definitions and, for stablehlo, a
// copy of the rows the reader held before; malformed plain bytecode as a ParseError naming what is
// not read.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../src/ir/bytecode/bytecode_internal.h"
#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

const fs::path kOld = fs::path(HHLO_GENERATED_DIR) / "plain_bytecode";
const fs::path kNew = fs::path(HHLO_GENERATED_DIR) / "plain_bytecode_jax_new";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Skips the test when the newest JAX's programs were not made (no .venv-jax-new).
#define SKIP_WITHOUT(dir)                                                                    \
  if (!fs::exists((dir) / "manifest.json"))                                                  \
  GTEST_SKIP() << "no plain bytecode in " << (dir).string()                                  \
               << (dir == kNew ? ": scripts/setup.sh makes .venv-jax-new (JAX 0.12.1) only " \
                                 "where a Python 3.12 or newer exists; run it, then cmake"   \
                               : ": gen_plain_bytecode.py did not run")

/// One test over the project's JAX (SUITE.NAME) and one over the newest (SUITEJaxNew.NAME).
#define TEST_BOTH_JAX(suite, name)          \
  void suite##_##name(const fs::path& dir); \
  TEST(suite, name) {                       \
    SKIP_WITHOUT(kOld);                     \
    suite##_##name(kOld);                   \
  }                                         \
  TEST(suite##JaxNew, name) {               \
    SKIP_WITHOUT(kNew);                     \
    suite##_##name(kNew);                   \
  }                                         \
  void suite##_##name(const fs::path& dir)

std::vector<fs::path> programs(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".mlirbc") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// "" when the bytecode and its text print the same with locations, else where they differ; a
/// bytecode error is prefixed "(the text too)" when parse_module refuses the text likewise.
std::string compare(const fs::path& bc) {
  PrintOptions po{.locations = true};
  std::string name = bc.stem().string();
  fs::path text = bc.parent_path() / (name.substr(0, name.find('@')) + ".mlir");  // NAME@vK
  std::string from_bc;
  try {
    from_bc = to_mlir(read_bytecode(slurp(bc), {.source_name = name + ".mlirbc"}), po);
  } catch (const std::exception& e) {
    try {
      parse_module(slurp(text));
    } catch (const std::exception&) {
      return std::string("(the text too) ") + e.what();
    }
    return e.what();
  }
  try {
    std::string from_text = to_mlir(parse_module(slurp(text), {.source_name = name + ".mlir"}), po);
    if (from_bc == from_text) return "";
    size_t k = 0;
    while (k < from_bc.size() && k < from_text.size() && from_bc[k] == from_text[k]) ++k;
    size_t start = k > 100 ? k - 100 : 0;
    return "differs: bytecode '" + from_bc.substr(start, 240) + "' vs text '" +
           from_text.substr(start, 240) + "'";
  } catch (const std::exception& e) {
    return e.what();
  }
}

// Elementwise ops, dot_general, convolution, reductions with regions, while, cond, scan,
// gather/scatter, sort and top_k, compare, LAPACK custom calls, constants of bf16/f16/complex/i1
// (packed and splat)/small integers, shapes, FFT, triangular solve, chlo ops, RNG, result
// accuracy, a gradient, a shape-polymorphic module, shardings and collectives; each also at
// bytecode versions 0 to 5 (attributes in the op's dictionary before properties, version 5).
//
// JAX 0.12.1 lowers jax.random.normal and erf_inv with stablehlo.fma (StableHLO 1.24), jnp.exp2
// and jnp.log2 with stablehlo.exp2 / log2 (1.23, with result_accuracy): read from its text, its
// plain bytecode and (NAME@vhlo) its VHLO portable artifact (vhlo.fma_v1, exp2_v1, log2_v1) alike.
TEST_BOTH_JAX(PlainBytecode, PrintsAsItsTextWithLocations) {
  std::vector<fs::path> bcs = programs(dir);
  ASSERT_GE(bcs.size(), 28u * 7) << dir;
  int new_ops = 0;
  for (const fs::path& bc : bcs) {
    EXPECT_EQ(compare(bc), "") << bc.filename();
    if (bc.stem().string().ends_with("@vhlo")) ++new_ops;
  }
  if (dir == kNew) {
    EXPECT_EQ(new_ops, 3) << "rng, erf_inv and exp2_log2 as VHLO artifacts";
  }
}

// Every op of jaxlib's stablehlo, chlo and func dialects (its generated op definitions, dumped by
// the generator) has a row of the reader's table with the same attributes, in the same order,
// equally optional: else a property blob of that release would be read under the wrong names.
TEST_BOTH_JAX(PlainBytecode, PropertyTableMatchesJaxlibsOpDefinitions) {
  std::ifstream in(dir / "ods_attrs.txt");
  std::string line;
  int ops = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string op, w;
    words >> op;
    std::vector<std::string> want;
    while (words >> w) want.push_back(w);
    ++ops;
    if (want.empty()) continue;  // no attributes: no properties
    const std::vector<bc::PropAttr>* row = bc::plain_prop_attrs(op, want.size());
    if (!row) {
      ADD_FAILURE() << op << ": no row of " << want.size() << " attributes (" << line << ")";
      continue;
    }
    std::vector<std::string> got;  // jaxlib's definitions list them sorted
    for (const bc::PropAttr& a : *row)
      got.push_back(std::string(a.name) + (a.optional ? "?" : "!"));
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << op;
  }
  EXPECT_GE(ops, 150) << "no op definitions in " << dir / "ods_attrs.txt";
}

// The defaults the table drops are those of optional attributes only, and every stablehlo and
// chlo row is sorted by name (the order ODS writes properties in; func.func writes the dlti MLIR
// added later last).
TEST(PlainBytecode, PropertyTableRowsAreSortedAndDefaultsOptional) {
  auto table = bc::plain_prop_table();
  ASSERT_GE(table.size(), 90u);
  for (const auto& [op, row] : table) {
    for (size_t k = 0; k < row->size(); ++k) {
      const bc::PropAttr& a = (*row)[k];
      if (k && !op.starts_with("func.")) {
        EXPECT_LT((*row)[k - 1].name, a.name) << op;
      }
      if (!a.default_text.empty()) {
        EXPECT_TRUE(a.optional) << op << " " << a.name;
      }
    }
    EXPECT_EQ(bc::plain_prop_attrs(op, row->size()), row) << op << ": two rows of one size";
  }
}

// The stablehlo ops' property layouts as the reader's own table wrote them before they were built
// from the op declarations (src/ir/op_attributes.cc), each checked then against jaxlib's op
// definitions (JAX 0.10.2: StableHLO 1.17.0, JAX 0.12.1: 1.25.3) and StableHLO's
// StablehloOps.td: `name?` optional, `name?=TEXT` optional with the ODS default TEXT the printer
// elides; an op with two layouts (an attribute a release added) has two rows.
struct RefRow {
  std::string_view op;
  std::string_view attrs;  // space-separated, sorted
};

constexpr RefRow kStablehloProps[] = {
    {"stablehlo.all_gather",
     "all_gather_dim channel_handle? replica_groups use_global_device_ids?"},
    {"stablehlo.all_reduce", "channel_handle? replica_groups use_global_device_ids?"},
    {"stablehlo.all_to_all",
     "channel_handle? concat_dimension replica_groups split_count split_dimension"},
    {"stablehlo.batch_norm_grad", "epsilon feature_index"},
    {"stablehlo.batch_norm_inference", "epsilon feature_index"},
    {"stablehlo.batch_norm_training", "epsilon feature_index"},
    {"stablehlo.broadcast", "broadcast_sizes"},
    {"stablehlo.broadcast_in_dim", "broadcast_dimensions"},
    {"stablehlo.cbrt", "result_accuracy?=DEFAULT"},
    {"stablehlo.cholesky", "lower?=false"},
    {"stablehlo.collective_broadcast", "channel_handle? has_dynamic_root? replica_groups"},
    {"stablehlo.collective_broadcast", "channel_handle? replica_groups"},
    {"stablehlo.collective_permute", "channel_handle? source_target_pairs"},
    {"stablehlo.collective_reduce",
     "channel_handle? has_dynamic_root? replica_groups use_global_device_ids?"},
    {"stablehlo.compare", "compare_type? comparison_direction"},
    {"stablehlo.composite", "composite_attributes?={} decomposition name version?=0"},
    {"stablehlo.concatenate", "dimension"},
    {"stablehlo.constant", "value"},
    {"stablehlo.convolution",
     "batch_group_count dimension_numbers feature_group_count lhs_dilation? padding? "
     "precision_config? rhs_dilation? window_reversal? window_strides?"},
    {"stablehlo.cosine", "result_accuracy?=DEFAULT"},
    {"stablehlo.custom_call",
     "api_version?=1 backend_config? call_target_name called_computations?=[] "
     "has_side_effect?=false operand_layouts? output_operand_aliases?=[] result_layouts?"},
    {"stablehlo.custom_call",
     "api_version?=1 backend_config? call_target_name called_computations?=[] "
     "has_side_effect?=false operand_layouts? output_operand_aliases?=[] result_layouts? "
     "result_tilings?"},
    {"stablehlo.dot", "precision_config?"},
    {"stablehlo.dot_general", "algorithm? dot_dimension_numbers precision_config?"},
    {"stablehlo.dynamic_broadcast_in_dim",
     "broadcast_dimensions known_expanding_dimensions? known_nonexpanding_dimensions?"},
    {"stablehlo.dynamic_conv",
     "batch_group_count dimension_numbers feature_group_count lhs_dilation? precision_config? "
     "rhs_dilation? window_reversal? window_strides?"},
    {"stablehlo.dynamic_gather", "dimension_numbers indices_are_sorted?"},
    {"stablehlo.dynamic_iota", "iota_dimension"},
    {"stablehlo.dynamic_slice", "slice_sizes"},
    {"stablehlo.einsum", "einsum_config"},
    {"stablehlo.exp2", "result_accuracy?=DEFAULT"},
    {"stablehlo.exponential", "result_accuracy?=DEFAULT"},
    {"stablehlo.exponential_minus_one", "result_accuracy?=DEFAULT"},
    {"stablehlo.fft", "fft_length fft_type"},
    {"stablehlo.gather", "dimension_numbers indices_are_sorted? slice_sizes"},
    {"stablehlo.get_dimension_size", "dimension"},
    {"stablehlo.get_tuple_element", "index"},
    {"stablehlo.infeed", "infeed_config? layout?"},
    {"stablehlo.iota", "iota_dimension"},
    {"stablehlo.log", "result_accuracy?=DEFAULT"},
    {"stablehlo.log2", "result_accuracy?=DEFAULT"},
    {"stablehlo.log_plus_one", "result_accuracy?=DEFAULT"},
    {"stablehlo.logistic", "result_accuracy?=DEFAULT"},
    {"stablehlo.map", "dimensions"},
    {"stablehlo.outfeed", "outfeed_config?"},
    {"stablehlo.pad", "edge_padding_high edge_padding_low interior_padding"},
    {"stablehlo.recv", "channel_handle is_host_transfer? source_target_pairs?"},
    {"stablehlo.reduce", "dimensions"},
    {"stablehlo.reduce_precision", "exponent_bits mantissa_bits"},
    {"stablehlo.reduce_scatter",
     "channel_handle? replica_groups scatter_dimension use_global_device_ids?"},
    {"stablehlo.reduce_window",
     "base_dilations? padding? window_dilations? window_dimensions window_strides?"},
    {"stablehlo.reverse", "dimensions"},
    {"stablehlo.rng", "rng_distribution"},
    {"stablehlo.rng_bit_generator", "rng_algorithm"},
    {"stablehlo.rsqrt", "result_accuracy?=DEFAULT"},
    {"stablehlo.scatter", "indices_are_sorted? scatter_dimension_numbers unique_indices?"},
    {"stablehlo.select_and_scatter", "padding? window_dimensions? window_strides?"},
    {"stablehlo.send", "channel_handle is_host_transfer? source_target_pairs?"},
    {"stablehlo.set_dimension_size", "dimension"},
    {"stablehlo.sine", "result_accuracy?=DEFAULT"},
    {"stablehlo.slice", "limit_indices start_indices strides"},
    {"stablehlo.sort", "dimension? is_stable?"},
    {"stablehlo.sqrt", "result_accuracy?=DEFAULT"},
    {"stablehlo.tan", "result_accuracy?=DEFAULT"},
    {"stablehlo.tanh", "result_accuracy?=DEFAULT"},
    {"stablehlo.torch_index_select", "batch_dims dim"},
    {"stablehlo.transpose", "permutation"},
    {"stablehlo.triangular_solve", "left_side lower transpose_a unit_diagonal"},
    {"stablehlo.unary_einsum", "einsum_config"},
};

/// `layout` written as a row of kStablehloProps.
std::string row_text(const std::vector<bc::PropAttr>& layout) {
  std::string out;
  for (const bc::PropAttr& a : layout) {
    out += (out.empty() ? "" : " ") + std::string(a.name) + (a.optional ? "?" : "");
    if (!a.default_text.empty()) out += "=" + std::string(a.default_text);
  }
  return out;
}

// The stablehlo layouts built from the op declarations are exactly the reference rows: the same
// ops, the same layouts of each, names, order, optionality and elided defaults alike.
TEST(PlainBytecode, StablehloLayoutsFromTheDeclarationsAreTheReferenceRows) {
  std::map<std::string, std::multiset<std::string>> want, got;
  for (const RefRow& r : kStablehloProps) want[std::string(r.op)].insert(std::string(r.attrs));
  for (const auto& [op, layout] : bc::plain_prop_table())
    if (op.starts_with("stablehlo.")) got[std::string(op)].insert(row_text(*layout));
  for (const auto& [op, rows] : got) EXPECT_TRUE(want.contains(op)) << op << ": not a reference op";
  for (const auto& [op, rows] : want) {
    EXPECT_EQ(got[op], rows) << op;
    for (const std::string& row : rows) {
      size_t n = row.empty() ? 0 : std::count(row.begin(), row.end(), ' ') + 1;
      const std::vector<bc::PropAttr>* layout = bc::plain_prop_attrs(op, n);
      EXPECT_TRUE(layout && row_text(*layout) == row) << op << ": " << row;
    }
  }
}

// ---------------------------------------------------------------- malformed plain bytecode

std::string sample(const std::string& name = "compare") { return slurp(kOld / (name + ".mlirbc")); }

TEST(PlainBytecode, EveryTruncationIsAParseErrorNamingSectionAndOffset) {
  SKIP_WITHOUT(kOld);
  std::string b = sample();
  ASSERT_GT(b.size(), 100u);
  for (size_t n = 0; n < b.size(); ++n) {
    try {
      read_bytecode(std::string_view(b).substr(0, n));
      ADD_FAILURE() << "truncated to " << n << " bytes: no error";
    } catch (const ParseError& e) {
      EXPECT_NE(e.source().find("section"), std::string::npos) << e.what();
      EXPECT_LE(e.column(), n) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "truncated to " << n << " bytes: not a ParseError: " << e.what();
    }
  }
}

TEST(PlainBytecode, EveryFlippedByteIsReadOrAnError) {
  SKIP_WITHOUT(kOld);
  for (std::string name :
       {"compare", "gather_scatter", "special", "custom_calls", "attr_kinds", "composite_enums"}) {
    std::string b = sample(name);
    for (size_t i = 0; i < b.size(); ++i)
      for (unsigned char x : {0x01, 0x80, 0xFF}) {
        std::string c = b;
        c[i] = static_cast<char>(c[i] ^ x);
        std::string printed;
        try {  // a flip may still be valid bytecode (another constant, name, ...)
          printed = to_mlir(read_bytecode(c, {.verify = false}));
        } catch (const Error&) {  // a ParseError
          continue;
        } catch (const std::exception& e) {
          ADD_FAILURE() << name << " byte " << i << " ^ " << int(x)
                        << ": not an hhlo::Error: " << e.what();
          continue;
        }
        try {  // what is read prints as text that parses (the fuzz target's property)
          parse_module(printed, {.verify = false});
        } catch (const std::exception& e) {
          ADD_FAILURE() << name << " byte " << i << " ^ " << int(x)
                        << ": the printed module does not parse back: " << e.what();
        }
      }
  }
}

/// The first error of reading `b` with one byte set to `v` that contains `want` (each position
/// tried in turn), or "" when none does.
std::string error_with_byte(const std::string& b, unsigned char v, const std::string& want) {
  for (size_t i = 0; i < b.size(); ++i) {
    std::string c = b;
    c[i] = static_cast<char>(v);
    try {
      read_bytecode(c);
    } catch (const Error& e) {
      if (std::string(e.what()).find(want) != std::string::npos) return e.what();
    }
  }
  return "";
}

// An encoding newer than the newest this reader knows is named so: a stablehlo attribute code
// past 22 (MeshAttr), a chlo attribute code past 1. A byte of value (code << 1) | 1 is the
// one-byte varint of `code`, set where an entry starts.
TEST(PlainBytecode, AnEncodingNewerThanTheNewestKnownIsNamedSo) {
  SKIP_WITHOUT(kOld);
  std::string e = error_with_byte(sample(), (23 << 1) | 1, "stablehlo attribute code 23");
  EXPECT_NE(e.find("found stablehlo attribute code 23, newer than the newest this reader knows "
                   "(22, MeshAttr): written by a newer StableHLO"),
            std::string::npos)
      << e;
  e = error_with_byte(sample("chlo_compare"), (2 << 1) | 1, "chlo attribute code 2");
  EXPECT_NE(e.find("found chlo attribute code 2, newer than the newest this reader knows (1, "
                   "ComparisonTypeAttr)"),
            std::string::npos)
      << e;
}

/// The error of reading `b` with the string `from` (NUL-terminated in the string section)
/// patched to `to` (same length), or "(no error)".
std::string renamed_error(std::string b, const std::string& from, const std::string& to) {
  size_t at = b.find(from + '\0');
  if (at == std::string::npos) return "(no " + from + " in the sample)";
  b.replace(at, from.size(), to);
  try {
    read_bytecode(b, {.source_name = "x.mlirbc"});
  } catch (const ParseError& e) {
    return e.what();
  }
  return "(no error)";
}

// Properties holding a number of attributes no release this reader knows wrote for the op (an
// attribute added by a newer StableHLO) are refused naming the op and the counts known, not read
// under wrong names; an op with properties this reader has no row for is named. Here the two
// attributes of stablehlo.compare's properties are read as another op's.
TEST(PlainBytecode, PropertiesOfAnUnknownReleaseOrOpAreRefusedNamingTheOp) {
  SKIP_WITHOUT(kOld);
  std::string e = renamed_error(sample(), "compare", "reverse");
  EXPECT_NE(e.find("expected properties of stablehlo.reverse holding 1 attributes (the releases "
                   "this reader knows), found 2 attributes: written by a release of "
                   "stablehlo.reverse whose attributes are not read yet"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("(bytecode IR section)"), std::string::npos) << e;
  e = renamed_error(sample(), "compare", "comparx");
  EXPECT_NE(e.find("expected an op whose properties this reader knows (stablehlo, chlo, func), "
                   "found bytecode: op stablehlo.comparx not read yet (its properties hold 2 "
                   "attributes)"),
            std::string::npos)
      << e;
  EXPECT_EQ(renamed_error(sample(), "compare", "compare"), "(no error)");
}

// Found by the bytecode fuzz target (tests/fuzz/regressions/bytecode): a type attribute inside an
// op's attribute (here a function type among dot_general's precisions) was kept as its text,
// which the printer wrote and the parser could not read back. Only element and tensor types are
// kept as text; any other is refused where it is read, as the text parser refuses it.
TEST(PlainBytecode, AFunctionTypeAsAnAttributeIsAParseError) {
  std::string b = slurp(fs::path(HHLO_SOURCE_DIR) /
                        "tests/fuzz/regressions/bytecode/function-type-as-an-attribute");
  ASSERT_FALSE(b.empty());
  try {
    read_bytecode(b);
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "expected an element or tensor type for 'precision_config', found bytecode: "
                  "the type (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32> as an "
                  "attribute not read yet"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hhlo
