// The collectives our builder writes against the ones JAX writes for the same shard_map
// collectives (psum, pmax, all_gather, psum_scatter, all_to_all, ppermute over a 4-device mesh;
// texts generated at build time by tests/ir/gen_collective_texts.py, never committed). JAX's op
// (pretty properties, bare unit attribute) is cut out of its manual computation, parsed into our
// IR and printed: it must print exactly as the op our builder makes, so attribute kinds, values
// and types are the same.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "golden_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::body_of;
const TensorType kShard{DType::f32, {2, 4}};  // JAX's per-shard operand
const ReplicaGroups kAll4{{{0, 1, 2, 3}}};
const CollectiveOptions kJax{ChannelHandle{1, 1}, true};  // what shard_map writes

/// JAX's collective op `op` in collectives/NAME.mlir, as a @main of its per-shard operand,
/// printed by our printer (body only, as body_of).
std::string jax_op(const std::string& name, const std::string& op) {
  std::ifstream in(std::string(HHLO_GENERATED_DIR) + "/collectives/" + name + ".mlir");
  EXPECT_TRUE(in) << "missing generated text " << name;
  std::string line, text;
  bool inside = false;
  std::string result;  // the op's result type
  while (std::getline(in, line)) {
    if (!inside && line.find("\"stablehlo." + op + "\"") == std::string::npos) continue;
    inside = true;
    text += line + "\n";
    size_t arrow = line.rfind(") -> ");
    if (line.find(" : (") != std::string::npos && arrow != std::string::npos) {
      result = line.substr(arrow + 5);
      break;
    }
  }
  EXPECT_FALSE(result.empty()) << "no " << op << " in " << name << ":\n" << text;
  size_t eq = text.find(" = ");
  std::string module = "func.func @main(%arg1: tensor<2x4xf32>) -> " + result + " {\n  %r" +
                       text.substr(eq) + "  return %r : " + result + "\n}\n";
  Module m = parse_module(module, {.source_name = name});
  return test::body_lines(to_mlir(m, {.locations = false}));
}

std::vector<Value> one(Value v) { return {v}; }
Value sum(Value a, Value b) { return add(a, b); }

TEST(CollectivesJax, PsumAndPmaxAreAllReduces) {
  EXPECT_EQ(body_of({kShard}, [](Func& f) { return one(all_reduce(f.arg(0), kAll4, sum, kJax)); }),
            jax_op("psum", "all_reduce"));
  EXPECT_EQ(body_of({kShard},
                    [](Func& f) {
                      return one(all_reduce(
                          f.arg(0), kAll4, [](Value a, Value b) { return maximum(a, b); }, kJax));
                    }),
            jax_op("pmax", "all_reduce"));
}

TEST(CollectivesJax, AllGatherPsumScatterAllToAllPpermute) {
  EXPECT_EQ(body_of({kShard}, [](Func& f) { return one(all_gather(f.arg(0), 1, kAll4, kJax)); }),
            jax_op("all_gather", "all_gather"));
  EXPECT_EQ(
      body_of({kShard}, [](Func& f) { return one(reduce_scatter(f.arg(0), 1, kAll4, sum, kJax)); }),
      jax_op("psum_scatter", "reduce_scatter"));
  EXPECT_EQ(body_of({kShard},
                    [](Func& f) {
                      return one(all_to_all(f.arg(0), 1, 0, 4, kAll4, ChannelHandle{1, 1}));
                    }),
            jax_op("all_to_all", "all_to_all"));
  EXPECT_EQ(body_of({kShard},
                    [](Func& f) {
                      return one(collective_permute(f.arg(0), {{0, 1}, {1, 2}, {2, 3}, {3, 0}},
                                                    ChannelHandle{1, 1}));
                    }),
            jax_op("ppermute", "collective_permute"));
}

}  // namespace
}  // namespace hhlo
