// The entry shardings of a compiled program, read from its HloModuleProto
// (src/runtime/program_shape.h): spmd_output_sharding (field 12) and spmd_parameters_shardings
// (field 14), each an xla.OpSharding decoded by hhlo/core/op_sharding_proto.h, then kept only
// where the runtime can lay it out. The bytes are written by hand from xla/service/hlo.proto's
// and xla/xla_data.proto's field numbers; what XLA itself writes is checked by
// ShardedArray.ExecutableReportsThePartitionedLayouts (tests/runtime/sharded_array_test.cc).
#include <gtest/gtest.h>

#include <string>

#include "proto_bytes.h"
#include "runtime/program_shape.h"

namespace hhlo {
namespace {

using test_proto::bytes;
using test_proto::message_field;

const std::string kReplicated;                                        // type absent: REPLICATED
const std::string kRows = bytes({0x08, 0x03, 0x1a, 0x02, 0x02, 0x01,  // devices=[2,1]<=[2]
                                 0x4a, 0x01, 0x02, 0x52, 0x01, 0x00});
const std::string kMaximal = bytes({0x08, 0x01, 0x22, 0x01, 0x00});

std::string tuple(const std::string& a, const std::string& b) {
  return bytes({0x08, 0x02}) + message_field(5, a) + message_field(5, b);
}

/// The reason decode_hlo_shardings gives for `module`, or "" when it decodes.
std::string reason(const std::string& module) {
  auto r = detail::decode_hlo_shardings(module);
  auto* why = std::get_if<std::string>(&r);
  return why ? *why : "";
}

TEST(ProgramShardings, ParametersOneFieldEachResultsOneTupleFlattened) {
  std::string module = message_field(14, kRows) + message_field(14, kReplicated) +
                       message_field(12, tuple(kReplicated, kRows));
  auto r = detail::decode_hlo_shardings(module);
  ASSERT_TRUE(std::holds_alternative<detail::ProgramShardings>(r)) << std::get<std::string>(r);
  const auto& s = std::get<detail::ProgramShardings>(r);
  ASSERT_TRUE(s.has_parameters && s.has_results);
  ASSERT_EQ(s.parameters.size(), 2u);
  EXPECT_EQ(s.parameters[0].to_string(), "{devices=[2,1]<=[2]}");
  EXPECT_EQ(s.parameters[1].to_string(), "{replicated}");
  ASSERT_EQ(s.results.size(), 2u);
  EXPECT_EQ(s.results[0].to_string(), "{replicated}");
  EXPECT_EQ(s.results[1].tile_devices(), (std::vector<int64_t>{0, 1}));
  // A single (non-tuple) output sharding is the one result's.
  auto one = detail::decode_hlo_shardings(message_field(12, kRows));
  ASSERT_TRUE(std::holds_alternative<detail::ProgramShardings>(one));
  EXPECT_EQ(std::get<detail::ProgramShardings>(one).results.size(), 1u);
  EXPECT_FALSE(std::get<detail::ProgramShardings>(one).has_parameters);
}

TEST(ProgramShardings, NoneRecordedIsNotPartitioned) {
  auto r = detail::decode_hlo_shardings(bytes({0x0a, 0x01, 'm'}));  // name = "m" only
  ASSERT_TRUE(std::holds_alternative<detail::ProgramShardings>(r));
  EXPECT_FALSE(std::get<detail::ProgramShardings>(r).has_parameters);
  EXPECT_FALSE(std::get<detail::ProgramShardings>(r).has_results);
}

TEST(ProgramShardings, KindsTheRuntimeCannotLayOutNameTheirPlace) {
  EXPECT_EQ(reason(message_field(12, tuple(kRows, kMaximal))),
            "output: a MAXIMAL (single-device) sharding");
  EXPECT_EQ(reason(message_field(14, bytes({0x08, 0x04}))), "parameter: a MANUAL sharding");
  EXPECT_EQ(reason(message_field(14, bytes({0x08, 0x05}))), "parameter: an UNKNOWN sharding");
  EXPECT_EQ(reason(message_field(12, bytes({0x08, 0x06}))), "output: an UNREDUCED sharding");
  EXPECT_EQ(reason(message_field(14, tuple(kRows, kRows))), "parameter: a nested tuple sharding");
  EXPECT_EQ(reason(message_field(12, tuple(kRows, tuple(kRows, kRows)))),
            "output: a nested tuple sharding");
}

TEST(ProgramShardings, MalformedOpShardingIsTheDecodersError) {
  std::string why = reason(message_field(14, bytes({0x08})));  // type's value cut off
  EXPECT_EQ(why.rfind("parameter: HloModuleProto.spmd_parameters_shardings:0:0: expected an "
                      "xla.OpSharding proto",
                      0),
            0u)
      << why;
  EXPECT_NE(why.find("truncated"), std::string::npos) << why;
  // A tile assignment that is not one: 4 tiles, 2 devices.
  why = reason(
      message_field(12, bytes({0x08, 0x03, 0x1a, 0x02, 0x02, 0x02, 0x22, 0x02, 0x00, 0x01})));
  EXPECT_NE(why.find("output: HloModuleProto.spmd_output_sharding"), std::string::npos) << why;
  EXPECT_NE(why.find("4 devices (the tile count)"), std::string::npos) << why;
  // The module itself cut short.
  EXPECT_EQ(reason(bytes({0x72, 0x05})), "the optimized program is not a valid HloModuleProto");
}

}  // namespace
}  // namespace hhlo
