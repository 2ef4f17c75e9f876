// The one protobuf wire reader (hhlo/core/proto_wire.h), the key encoding
// (hhlo/core/key_fields.h) and the median (hhlo/core/percentile.h). The bytes are written by hand
// from the encoding rules at https://protobuf.dev/programming-guides/encoding/.
#include "hhlo/core/proto_wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hhlo/core/key_fields.h"
#include "hhlo/core/percentile.h"
#include "proto_bytes.h"

namespace hhlo {
namespace {

using test_proto::bytes;

TEST(ProtoWire, ReadsEachWireType) {
  // field 1 varint 150 (08 96 01), field 2 fixed64, field 3 "ab", field 4 fixed32, field 5 = 1.
  std::string m = bytes({0x08, 0x96, 0x01, 0x11, 1,    2, 3, 4, 5, 6,    7,   8,
                         0x1a, 0x02, 'a',  'b',  0x25, 1, 2, 3, 4, 0x28, 0x01});
  ProtoWire w(m);
  ProtoField f;
  ASSERT_TRUE(w.next(f));
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(f.wire_type, 0u);
  EXPECT_EQ(f.scalar, 150u);
  ASSERT_TRUE(w.next(f));
  EXPECT_EQ(f.number, 2u);
  EXPECT_EQ(f.wire_type, 1u);
  ASSERT_TRUE(w.next(f));
  EXPECT_EQ(f.number, 3u);
  EXPECT_EQ(f.payload, "ab");
  ASSERT_TRUE(w.next(f));
  EXPECT_EQ(f.number, 4u);
  EXPECT_EQ(f.wire_type, 5u);
  ASSERT_TRUE(w.next(f));
  EXPECT_EQ(f.number, 5u);
  EXPECT_EQ(f.scalar, 1u);
  EXPECT_TRUE(w.done());
}

TEST(ProtoWire, MalformedBytesAreFalseNeverARead) {
  ProtoField f;
  ProtoWire cut_varint(bytes({0x08, 0x96}));  // the value's continuation byte is missing
  EXPECT_FALSE(cut_varint.next(f));
  ProtoWire long_length(bytes({0x1a, 0x05, 'a'}));  // 5 bytes announced, 1 there
  EXPECT_FALSE(long_length.next(f));
  ProtoWire cut_fixed(bytes({0x11, 1, 2}));  // fixed64 with 2 bytes
  EXPECT_FALSE(cut_fixed.next(f));
  ProtoWire group(bytes({0x0b}));  // field 1, wire type 3 (start group)
  EXPECT_FALSE(group.next(f));
  std::string eleven(10, static_cast<char>(0x80));
  eleven += '\x01';
  ProtoWire too_long(eleven);  // a varint of 11 bytes
  uint64_t v = 0;
  EXPECT_FALSE(too_long.varint(v));
}

TEST(ProtoWire, RepeatedIntegersPackedOrNot) {
  std::vector<int64_t> out;
  ProtoField one{.number = 3, .wire_type = 0, .scalar = 7};
  EXPECT_TRUE(append_integers(one, out));
  std::string packed = bytes({0x02, 0xac, 0x02});  // 2, 300
  EXPECT_TRUE(append_integers({.number = 3, .wire_type = 2, .payload = packed}, out));
  EXPECT_EQ(out, (std::vector<int64_t>{7, 2, 300}));
  std::string cut = bytes({0xac});
  EXPECT_FALSE(append_integers({.number = 3, .wire_type = 2, .payload = cut}, out));
  EXPECT_FALSE(append_integers({.number = 3, .wire_type = 5}, out));
}

TEST(KeyFields, TokensCannotRunIntoEachOther) {
  KeyText a, b;
  write_field(a, "ab", "c");
  write_field(b, "a", "bc");
  EXPECT_EQ(a.text, "n2:abs1:c");
  EXPECT_EQ(b.text, "n1:as2:bc");
}

TEST(Median, OfAnyOrderAsNumPy) {
  // numpy.median([3, 1, 2]) = 2, numpy.median([4, 1, 3, 2]) = 2.5.
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({}), 0);
}

}  // namespace
}  // namespace hhlo
