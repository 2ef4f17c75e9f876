// The op declarations (src/ir/op_attributes.cc): one row per attribute of an op, from which the
// bytecode reader's VHLO tables, the text parser's keywords and operand form and the defaults
// both readers fill are built; every attribute the readers give a StableHLO op, and every one
// its descriptor reads back, is a row. (tests/ir/vhlo_table_test.cc checks the VHLO rows against
// StableHLO's VhloOps.td.)
#include "../../src/ir/op_attributes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../src/ir/bytecode/bytecode_internal.h"
#include "../../src/ir/op_defaults.h"
#include "golden_util.h"
#include "hhlo/core/error.h"
#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/parser.h"

namespace hhlo::detail {
namespace {

namespace fs = std::filesystem;
using K = AttrKind;
using D = AttrDefault;

TEST(OpAttributes, EachOpsRowsAreOneRunOfUniqueNamesAndKeywords) {
  std::set<std::string_view> ended;
  std::string_view current;
  std::set<std::pair<std::string_view, std::string_view>> names, keywords;
  for (const AttrDecl& a : op_attributes()) {
    if (a.op != current) {
      EXPECT_TRUE(ended.insert(current).second) << a.op << "'s rows are not together";
      current = a.op;
    }
    EXPECT_TRUE(names.insert({a.op, a.name}).second) << a.op << "." << a.name << " twice";
    EXPECT_NE(declared_op(a.op), nullptr) << a.op << " has attributes but no op row";
    std::string_view k = a.keyword;
    while (!k.empty()) {
      size_t sp = std::min(k.find(' '), k.size());
      EXPECT_TRUE(keywords.insert({a.op, k.substr(0, sp)}).second) << a.op << " " << k;
      k.remove_prefix(std::min(sp + 1, k.size()));
    }
  }
}

TEST(OpAttributes, TheBytecodeReadersVhloTablesAreTheDeclarations) {
  for (const OpDecl& o : op_declarations()) {
    EXPECT_EQ(bc::newest_vhlo_version(o.op), o.vhlo) << o.op;
    EXPECT_EQ(bc::is_op_read(o.op), o.read) << o.op;
    for (int v = 1; v <= o.vhlo; ++v) {
      std::string name = std::string(o.op) + "_v" + std::to_string(v);
      const std::vector<std::string_view>* order = bc::vhlo_attr_names(name);
      ASSERT_NE(order, nullptr) << name;
      EXPECT_EQ(*order, vhlo_property_order(op_attributes(), o.op, v)) << name;
    }
  }
}

TEST(OpAttributes, EveryElementwiseOpHasTheOperandFormAndIsRead) {
  for (int arity : {1, 2, 3})
    for (std::string_view op : elementwise_op_names(arity)) {
      const OpDecl* o = declared_op(op);
      ASSERT_NE(o, nullptr) << op;
      EXPECT_EQ(o->form, OpForm::operands) << op;
      EXPECT_TRUE(o->read) << op;
    }
}

// The plain (non-VHLO) bytecode reader's stablehlo property layouts (bytecode_stablehlo_props.cc,
// checked against jaxlib's op definitions and a reference copy by bytecode_plain_test.cc) are the
// declarations' plain_property_layouts, and no other stablehlo op has one.
TEST(OpAttributes, ThePlainBytecodesStablehloLayoutsAreTheDeclarations) {
  size_t layouts = 0;
  for (const OpDecl& o : op_declarations()) {
    std::string full = "stablehlo." + std::string(o.op);
    for (const auto& want : plain_property_layouts(op_attributes(), o.op)) {
      ++layouts;
      const std::vector<bc::PropAttr>* got = bc::plain_prop_attrs(full, want.size());
      ASSERT_NE(got, nullptr) << full << " of " << want.size() << " attributes";
      for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_EQ((*got)[k].name, want[k]->name) << full;
        EXPECT_EQ((*got)[k].optional, want[k]->ods.form == OdsForm::optional) << full;
        EXPECT_EQ((*got)[k].default_text, want[k]->ods.elided) << full;
      }
    }
  }
  size_t stablehlo = 0;
  for (const auto& [op, layout] : bc::plain_prop_table()) stablehlo += op.starts_with("stablehlo.");
  EXPECT_EQ(stablehlo, layouts);
  EXPECT_GE(layouts, 60u);
}

// An elided default is an optional ODS attribute's, and a release range an ODS attribute's.
TEST(OpAttributes, OdsDefaultsAndReleasesAreOfOdsAttributes) {
  for (const AttrDecl& a : op_attributes()) {
    if (!a.ods.elided.empty()) {
      EXPECT_EQ(a.ods.form, OdsForm::optional) << a.op << "." << a.name;
    }
    if (a.ods.releases.since || a.ods.releases.until) {
      EXPECT_NE(a.ods.form, OdsForm::none) << a.op << "." << a.name;
    }
  }
}

// A `key = value` the op does not declare is a ParseError naming the op and the key (it was
// read as another op's attribute before the declarations: `dims` as broadcast_dimensions).
TEST(OpAttributes, AKeywordTheOpDoesNotDeclareIsAParseError) {
  const char* texts[][2] = {
      {"%1 = stablehlo.add %0, %0, dims = [0] : tensor<2xf32>", "'dims'"},
      {"%1 = stablehlo.reverse %0, dim = 0 : tensor<2xf32>", "'dim'"},
      {"%1 = stablehlo.transpose %0, type = FFT : tensor<2xf32>", "'type'"},
      {"%1 = stablehlo.reverse %0, algorithm = <x> : tensor<2xf32>", "'algorithm'"},
  };
  for (const auto& [line, key] : texts) {
    std::string text = std::string("func.func @main(%0: tensor<2xf32>) -> tensor<2xf32> {\n  ") +
                       line + "\n  return %1 : tensor<2xf32>\n}\n";
    try {
      parse_module(text);
      ADD_FAILURE() << line << " was read";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("a keyword of stablehlo."), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

TEST(OpAttributes, AWindowFieldTheOpDoesNotDeclareIsAParseErrorListingThem) {
  std::string text =
      "func.func @main(%0: tensor<1x4x4x1xf32>, %1: tensor<1x1x1x1xf32>) -> "
      "tensor<1x4x4x1xf32> {\n  %2 = stablehlo.convolution(%0, %1) dim_numbers = "
      "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {slide = [1, 1]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
      "(tensor<1x4x4x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x1xf32>\n"
      "  return %2 : tensor<1x4x4x1xf32>\n}\n";
  try {
    parse_module(text);
    ADD_FAILURE() << "window = {slide = ..} was read";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("stride, pad, lhs_dilate, rhs_dilate or reverse"),
              std::string::npos)
        << e.what();
  }
}

// The one row a new attribute takes, here `reverse`'s made-up `mode` (optional in ODS from
// StableHLO 1.30 on, its default -1 elided by the printer; VHLO version 2 on; an integer written
// `mode = N`, -1 when left out): the plain bytecode's property layouts, the VHLO property orders,
// the parser's keyword and the defaults filled all follow from it.
constexpr OdsDecl kNewOds = {OdsForm::optional, "-1", {30}};
constexpr AttrDecl kNewRow = {"reverse", "mode", K::integer, kNewOds, {2}, D::minus_one, "mode"};

TEST(OpAttributes, ANewAttributeIsOneRow) {
  std::vector<AttrDecl> table(op_attributes().begin(), op_attributes().end());
  table.push_back(kNewRow);
  using Names = std::vector<std::string_view>;
  auto plain = plain_property_layouts(table, "reverse");  // before 1.30 and from it on
  ASSERT_EQ(plain.size(), 2u);
  ASSERT_EQ(plain[0].size(), 1u);
  EXPECT_EQ(plain[0][0]->name, "dimensions");
  EXPECT_EQ(plain[0][0]->ods.form, OdsForm::required);
  ASSERT_EQ(plain[1].size(), 2u);
  EXPECT_EQ(plain[1][0]->name, "dimensions");
  EXPECT_EQ(plain[1][1], &table.back());
  EXPECT_EQ(vhlo_property_order(table, "reverse", 1), Names{"dimensions"});
  EXPECT_EQ(vhlo_property_order(table, "reverse", 2), (Names{"dimensions", "mode"}));
  EXPECT_EQ(find_keyword(table, "reverse", "mode"), &table.back());
  EXPECT_EQ(find_keyword(table, "transpose", "mode"), nullptr);
  EXPECT_EQ(find_attr(table, "reverse", "mode")->kind, K::integer);
  OpState st;
  st.name = "stablehlo.reverse";
  st.attrs.push_back({"dimensions", i64_array({0})});
  fill_op_defaults(st, table);
  ASSERT_EQ(st.attrs.size(), 2u);
  EXPECT_EQ(st.attrs[1].name, "mode");
  const IntAttr* mode = st.attrs[1].value.get_if<IntAttr>();
  ASSERT_NE(mode, nullptr);
  EXPECT_EQ(mode->value, -1);
  // Without the row nothing of it is known.
  EXPECT_EQ(plain_property_layouts(op_attributes(), "reverse").size(), 1u);
  EXPECT_EQ(bc::plain_prop_counts("stablehlo.reverse"), std::vector<size_t>{1});
  EXPECT_EQ(vhlo_property_order(op_attributes(), "reverse", 2), Names{"dimensions"});
  EXPECT_EQ(declared_attr_keyword("reverse", "mode"), nullptr);
}

// (op, attribute) of every look-up the descriptors made while the observer was set.
std::set<std::pair<std::string, std::string>>& reads() {
  static std::set<std::pair<std::string, std::string>> r;
  return r;
}

void record(std::string_view op, std::string_view name) {
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  reads().insert({std::string(op), std::string(name)});
}

/// The look-ups of `reads()` that name no declared attribute of their StableHLO op.
std::set<std::string> undeclared_reads() {
  std::set<std::string> out;
  for (const auto& [op, name] : reads())
    if (std::string_view(op).starts_with("stablehlo.") &&
        !declared_attr(std::string_view(op).substr(10), name))
      out.insert(op + "." + name + " (read by its descriptor)");
  return out;
}

/// Records the descriptors' look-ups through the whole run of the IR tests (the golden and
/// builder tests' modules, the readers' corpora, the error tests), and fails the run at its end
/// for one that names no declared attribute.
class EveryDescriptorReadIsDeclared : public ::testing::Environment {
 public:
  void SetUp() override { set_attr_read_observer(record); }
  void TearDown() override {
    set_attr_read_observer(nullptr);
    std::string list;
    for (const std::string& u : undeclared_reads()) list += "\n  " + u;
    EXPECT_TRUE(list.empty()) << "not declared in src/ir/op_attributes.cc:" << list;
  }
};
const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new EveryDescriptorReadIsDeclared);

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// The JAX texts and bytecode the build generates (gen_jax_texts.py, gen_bytecode_pairs.py) and
/// the shared StableHLO testdata corpus where it is.
std::vector<fs::path> generated_programs() {
  std::vector<fs::path> out;
  fs::path gen(HHLO_GENERATED_DIR);
  for (fs::path dir : {gen / "jax_texts", gen / "bytecode" / "jax", gen / "bytecode" / "text",
                       gen / "bytecode" / "corpus", fs::path(HHLO_CONFORMANCE_DIR)})
    if (fs::is_directory(dir))
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".mlir" || e.path().extension() == ".mlirbc")
          out.push_back(e.path());
  return out;
}

TEST(OpAttributes, EveryAttributeTheReadersGiveAndTheDescriptorsReadIsDeclared) {
  std::vector<fs::path> files = generated_programs();
  ASSERT_GE(files.size(), 40u);
  std::set<std::string> undeclared;
  AttrReadObserver before = attr_read_observer();
  set_attr_read_observer(record);
  for (const fs::path& p : files) {
    std::string src = slurp(p);
    try {
      Module m = p.extension() == ".mlirbc" ? read_bytecode(src) : parse_module(src);
      for (const auto& f : m.funcs()) {
        std::string u = test::undeclared_attributes(f->body());
        for (size_t i = 0, j; i < u.size(); i = j + 1) {
          j = u.find('\n', i);
          undeclared.insert(u.substr(i, j - i));
        }
      }
    } catch (const std::exception&) {
      // Not read (a form not read yet, a corpus file of an op we refuse): the bytecode and
      // parser tests account for those; what is read is what is checked here.
    }
  }
  set_attr_read_observer(before);
  undeclared.merge(undeclared_reads());
  std::string list;
  for (const std::string& u : undeclared) list += "\n  " + u;
  EXPECT_TRUE(undeclared.empty()) << "not declared in src/ir/op_attributes.cc:" << list;
  EXPECT_GT(reads().size(), 30u);
}

}  // namespace
}  // namespace hhlo::detail
