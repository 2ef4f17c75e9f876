// GSPMD `mhlo.sharding` strings (hhlo/core/gspmd_sharding.h): read into the typed form, printed
// back byte for byte, laid out over devices, converted to and from Mesh + per-dimension axes;
// malformed text is a ParseError at its column, and inside a module at its line and column.
// The forms are XLA's (HloSharding::ToString); JAX's own strings come from the GSPMD-lowered
// programs of tests/cli/gen_spmd_programs.py (generated at build time).
#include "hhlo/core/gspmd_sharding.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/spmd.h"

namespace hhlo {
namespace {

using Kind = GspmdSharding::Kind;

TEST(GspmdSharding, XlasFormsReadAndPrintBackByteForByte) {
  for (const char* text : {
           "{replicated}",
           "{manual}",
           "{unknown}",
           "{maximal device=3}",
           "{devices=[2,2]<=[4]}",
           "{devices=[1,4]<=[4]}",
           "{devices=[2,2]0,2,1,3}",
           "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
           "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
           "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
           "{devices=[2,1,3]0,1,2,3,4,5 last_tile_dim_replicate}",
           "{devices=[2,2,2]<=[8] last_tile_dims={manual}}",
           "{devices=[2,1,2,2]<=[2,2,2]T(2,0,1) last_tile_dims={manual, replicated}}",
           "{{replicated}, {maximal device=0}, {devices=[4]<=[4]}}",
           "{replicated metadata={op_name=\"a{b}\" source_line=3}}",
           "{devices=[4]<=[4] shard_as 1}",
       }) {
    GspmdSharding s = parse_gspmd_sharding(text);
    EXPECT_EQ(s.to_string(), text);
  }
}

TEST(GspmdSharding, TheTypedFormHoldsTheParts) {
  GspmdSharding s = parse_gspmd_sharding("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(s.kind, Kind::tiled);
  EXPECT_EQ(s.tile_dims, (Dims{2, 1, 2}));
  EXPECT_EQ(s.iota_reshape, (Dims{2, 2}));
  EXPECT_EQ(s.iota_transpose, (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(s.last_tile_dim_replicate);
  EXPECT_EQ(s.data_rank(), 2u);
  // transpose([[0, 1], [2, 3]]) read row-major.
  EXPECT_EQ(s.tile_devices(), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(parse_gspmd_sharding("{devices=[2,3]<=[3,2]T(1,0)}").tile_devices(),
            (std::vector<int64_t>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(parse_gspmd_sharding("{devices=[4]<=[4]}").tile_devices(),
            (std::vector<int64_t>{0, 1, 2, 3}));
  GspmdSharding m = parse_gspmd_sharding("{maximal device=2}");
  EXPECT_EQ(m.kind, Kind::maximal);
  EXPECT_EQ(m.device, 2);
  // Spaces between items are optional on input; the print is XLA's.
  EXPECT_EQ(
      parse_gspmd_sharding(" { devices=[2,2] 0,1,2,3  last_tile_dim_replicate } ").to_string(),
      "{devices=[2,2]0,1,2,3 last_tile_dim_replicate}");
}

TEST(GspmdSharding, MalformedTextIsAParseErrorAtItsColumn) {
  struct Case {
    const char* text;
    uint32_t column;
    const char* expected;  // a piece of ParseError::expected()
  };
  for (const Case& c : std::vector<Case>{
           {"replicated", 1, "'{'"},
           {"{replicated", 12, "'}'"},
           {"{replicate}", 2, "replicated, manual"},
           {"{maximal device=-1}", 17, "device id >= 0"},
           {"{maximal}", 9, "device="},
           {"{devices=[2,2]<=[3]}", 15, "iota of 4 devices"},
           {"{devices=[2,2]0,1,2}", 15, "4 devices"},
           {"{devices=[2,2]0,1,2,2}", 15, "distinct device ids"},
           {"{devices=[0]<=[1]}", 10, "tile dimensions >= 1"},
           {"{devices=[2,2]<=[2,2]T(1,1)}", 23, "permutation"},
           {"{devices=[2]<=[2] last_tile_dims={spare}}", 35, "subgroup type"},
           {"{devices=[4]<=[4] sideways}", 19, "last_tile_dim_replicate"},
           {"{replicated last_tile_dim_replicate}", 13, "metadata="},
           {"{devices=[x]<=[1]}", 11, "an integer"},
           {"{replicated} {manual}", 14, "the end"},
       }) {
    try {
      parse_gspmd_sharding(c.text);
      ADD_FAILURE() << c.text << " was read";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), 1u) << c.text;
      EXPECT_EQ(e.column(), c.column) << c.text << ": " << e.what();
      EXPECT_NE(e.expected().find(c.expected), std::string::npos) << c.text << ": " << e.what();
    }
  }
}

TEST(GspmdSharding, AMalformedAttributeInAModuleIsAParseErrorAtItsLineAndColumn) {
  const std::string text = R"(module @m attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%x: tensor<8xf32> {mhlo.sharding = "{devices=[4]<=[4]}"},
                         %y: tensor<8xf32> {mhlo.sharding = "{devices=[4]<=[5]}"}) -> tensor<8xf32> {
    %0 = stablehlo.add %x, %y : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
)";
  try {
    parse_module(text, {.source_name = "prog.mlir"});
    FAIL() << "parsed";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.source(), "prog.mlir");
    EXPECT_EQ(e.line(), 3u);
    // At `<=[5]`, the 13th character of the string.
    std::string line3 = text.substr(text.find("%y:") - 25, 120);
    EXPECT_EQ(e.column(), line3.find('"') + 1 + 13) << e.what();
    EXPECT_NE(e.expected().find("GSPMD sharding"), std::string::npos) << e.what();
  }
  // The well-formed ones print back exactly as written (the attribute stays a string).
  std::string good = text;
  good.replace(good.find("<=[5]"), 5, "<=[4]");
  Module m = parse_module(good);
  EXPECT_NE(to_mlir(m).find(R"(mhlo.sharding = "{devices=[4]<=[4]}")"), std::string::npos);
  std::optional<GspmdSharding> s = gspmd_sharding_of(m.find("main")->arg_attrs(1));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->tile_dims, (Dims{4}));
  EXPECT_FALSE(gspmd_sharding_of({}));
}

TEST(GspmdSharding, LayoutsAndTheMeshForm) {
  // [4, 6] split 2 x 2 over the transposed iota: tile (i, j) on device 0, 2, 1, 3.
  GspmdSharding s = parse_gspmd_sharding("{devices=[2,2]<=[2,2]T(1,0)}");
  ShardLayout l = shard_layout(s, {4, 6}, 4);
  EXPECT_EQ(l.shard, (Dims{2, 3}));
  EXPECT_EQ(l.devices, (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(l.offsets, (std::vector<Dims>{{0, 0}, {0, 3}, {2, 0}, {2, 3}}));
  auto ms = to_mesh_sharding(s, 2, 4);
  ASSERT_TRUE(ms);
  EXPECT_EQ(ms->first.to_string(), R"(<["d0"=2, "d1"=2], device_ids=[0, 2, 1, 3]>)");
  EXPECT_EQ(ms->second, (Sharding{{{"d0"}, {"d1"}}}));
  EXPECT_TRUE(shard_layout(ms->first, ms->second, {4, 6}).same_placement(l));
  // Partly replicated: dimension 0 over 2, the rest replicated.
  GspmdSharding p = parse_gspmd_sharding("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  ShardLayout lp = shard_layout(p, {8, 3}, 4);
  EXPECT_EQ(lp.shard, (Dims{4, 3}));
  EXPECT_EQ(lp.offsets, (std::vector<Dims>{{0, 0}, {0, 0}, {4, 0}, {4, 0}}));
  auto mp = to_mesh_sharding(p, 2, 4);
  ASSERT_TRUE(mp);
  EXPECT_EQ(mp->first.to_string(), R"(<["d0"=2, "r"=2]>)");
  EXPECT_EQ(mp->second, (Sharding{{{"d0"}, {}}}));
  EXPECT_TRUE(shard_layout(mp->first, mp->second, {8, 3}).same_placement(lp));
  // And back: the same string; with device ids, the explicit list of the same placement.
  EXPECT_EQ(gspmd_sharding(mp->first, mp->second).to_string(),
            "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(gspmd_sharding(ms->first, ms->second).to_string(), "{devices=[2,2]0,2,1,3}");
  // Replicated; and what the mesh model cannot say.
  EXPECT_EQ(shard_layout(parse_gspmd_sharding("{replicated}"), {3}, 4).devices.size(), 4u);
  EXPECT_FALSE(to_mesh_sharding(parse_gspmd_sharding("{maximal device=1}"), 1, 4));
  EXPECT_FALSE(
      to_mesh_sharding(parse_gspmd_sharding("{devices=[2,2]<=[4] last_tile_dims={manual}}"), 1, 4));
  EXPECT_FALSE(to_mesh_sharding(s, 3, 4));  // rank 3 for a 2-D tiling
  EXPECT_THROW(shard_layout(parse_gspmd_sharding("{maximal device=1}"), {3}, 4), ShardingError);
  EXPECT_THROW(shard_layout(s, {5, 6}, 4), ShardingError);  // 5 rows in 2 tiles
}

TEST(GspmdSharding, FromAMeshAndAxesAsJaxWritesThem) {
  Mesh grid{{{"x", 2}, {"y", 2}}, {}};
  auto text = [](const Mesh& m, const Sharding& s) { return gspmd_sharding(m, s).to_string(); };
  EXPECT_EQ(text(grid, {{{"x"}, {"y"}}}), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(text(grid, {{{"y"}, {"x"}}}), "{devices=[2,2]<=[2,2]T(1,0)}");
  EXPECT_EQ(text(grid, {{{"x"}, {}}}), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(text(grid, {{{"y"}, {}}}), "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(text(grid, {{{}, {"y"}}}), "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(text(grid, {{{"x", "y"}, {}}}), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(text(grid, {{{}, {}}}), "{replicated}");
  EXPECT_EQ(text(Mesh{{{"x", 4}}, {}}, {{{}, {"x"}}}), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(text(Mesh{{{"x", 4}}, {3, 2, 1, 0}}, {{{"x"}}}), "{devices=[4]3,2,1,0}");
  EXPECT_THROW(gspmd_sharding(grid, {{{"x"}, {"x"}}}), ShardingError);
  // Round trip through the mesh form places every block where the original did.
  for (const Sharding& s : {Sharding{{{"y"}, {"x"}}}, Sharding{{{}, {"y"}}}}) {
    GspmdSharding g = gspmd_sharding(grid, s);
    auto ms = to_mesh_sharding(g, 2, 4);
    ASSERT_TRUE(ms);
    EXPECT_TRUE(
        shard_layout(ms->first, ms->second, {4, 4}).same_placement(shard_layout(grid, s, {4, 4})));
    EXPECT_TRUE(shard_layout(g, {4, 4}, 4).same_placement(shard_layout(grid, s, {4, 4})));
  }
}

/// Every `mhlo.sharding = "..."` string of a generated program.
std::vector<std::string> sharding_strings(const std::string& path) {
  Module m = parse_module_file(path);
  std::string text = to_mlir(m);
  std::vector<std::string> out;
  std::regex re(R"(mhlo\.sharding = "([^"]*)\")");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

TEST(GspmdSharding, JaxsStringsReadAndPrintBackAndMatchOurConversion) {
  const std::string dir = std::string(HHLO_GENERATED_DIR) + "/spmd/";
  size_t seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.rfind("gspmd_", 0) != 0 || e.path().extension() != ".mlir") continue;
    for (const std::string& s : sharding_strings(e.path().string())) {
      EXPECT_EQ(parse_gspmd_sharding(s).to_string(), s) << name;
      ++seen;
    }
  }
  EXPECT_GT(seen, 10u);
  // The transposed case: JAX's strings for P("y", "x") and P("x", None) on the 2 x 2 mesh as
  // arguments, P("y", None) and P(None, "y") as results, are what gspmd_sharding writes.
  Module m = parse_module_file(dir + "gspmd_mesh_2d_transposed.mlir");
  const Func& f = *m.find("main");
  Mesh grid{{{"x", 2}, {"y", 2}}, {}};
  auto jax = [&](std::optional<GspmdSharding> s) { return s ? s->to_string() : "(none)"; };
  EXPECT_EQ(jax(gspmd_sharding_of(f.arg_attrs(0))),
            gspmd_sharding(grid, {{{"y"}, {"x"}}}).to_string());
  EXPECT_EQ(jax(gspmd_sharding_of(f.arg_attrs(1))),
            gspmd_sharding(grid, {{{"x"}, {}}}).to_string());
  EXPECT_EQ(jax(gspmd_sharding_of(f.result_attrs(0))),
            gspmd_sharding(grid, {{{"y"}, {}}}).to_string());
  EXPECT_EQ(jax(gspmd_sharding_of(f.result_attrs(1))),
            gspmd_sharding(grid, {{{}, {"y"}}}).to_string());
}

}  // namespace
}  // namespace hhlo
