// safetensors read and write (hhlo/core/safetensors.h) against files the real `safetensors`
// package wrote at test-generation time (tests/core/gen_safetensors_files.py), their values
// against NumPy's arrays of the same tensors, and every malformed case the spec's reference
// reader refuses, each refused with one IoError naming the file and the cause.
#include "hhlo/core/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "hhlo/core/file_io.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;

std::string gen(const std::string& name) {
  return std::string(HHLO_GENERATED_DIR) + "/safetensors/" + name;
}

/// The tensors of `s` by name.
std::map<std::string, const Array*> by_name(const Safetensors& s) {
  std::map<std::string, const Array*> out;
  for (const auto& [name, a] : s.tensors) out[name] = &a;
  return out;
}

TEST(Safetensors, ReadsEveryDtypeAsNumPyHasIt) {
  Safetensors s = read_safetensors(gen("all_dtypes.safetensors"));
  std::ifstream order_file(gen("all_dtypes.order.txt"));
  std::vector<std::string> order;
  for (std::string line; std::getline(order_file, line);) order.push_back(line);
  ASSERT_EQ(s.tensors.size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& [name, a] = s.tensors[i];
    EXPECT_EQ(name, order[i]) << "header order";
    Array want = read_npy(gen("all_dtypes." + name + ".npy"));
    EXPECT_EQ(a, want) << name << ": " << a.type().to_string() << " vs " << want.type().to_string();
  }
  EXPECT_EQ(s.metadata, (std::map<std::string, std::string>{{"format", "np"}}));
  auto t = by_name(s);
  EXPECT_EQ(t.at("f64")->rank(), 0);  // a scalar
  EXPECT_EQ(t.at("empty")->dims(), (Dims{0, 3}));
  EXPECT_EQ(t.at("c64")->dtype(), DType::c64);
  EXPECT_EQ(t.at("bf16")->dtype(), DType::bf16);
}

TEST(Safetensors, WritesTheBytesTheReferenceWriterWrites) {
  std::string want = read_regular_file(gen("all_dtypes.safetensors"), "reference");
  Safetensors s = parse_safetensors(std::as_bytes(std::span(want.data(), want.size())), "ref");
  // Given in another order: the writer lays them out as safetensors' prepare() does.
  std::vector<std::pair<std::string, Array>> tensors(s.tensors.rbegin(), s.tensors.rend());
  EXPECT_EQ(serialize_safetensors(tensors, {{"format", "np"}}), want);
}

TEST(Safetensors, ReadsWhatSafetensorsFlaxWrites) {
  Safetensors s = read_safetensors(gen("flax.safetensors"));
  EXPECT_TRUE(s.metadata.empty());
  auto t = by_name(s);
  ASSERT_EQ(t.size(), 4u);
  for (const char* name : {"dense.kernel", "dense.bias", "layers.0.w", "layers.1.w"})
    EXPECT_EQ(*t.at(name), read_npy(gen(std::string("flax.") + name + ".npy"))) << name;
}

TEST(Safetensors, RoundTripsThroughAFileWrittenAtomically) {
  auto dir = std::filesystem::temp_directory_path() / "hhlo_safetensors_roundtrip";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string path = (dir / "w.safetensors").string();
  std::vector<std::pair<std::string, Array>> tensors;
  tensors.emplace_back("z", Array::from<float>({2}, {1.5f, -2.0f}));
  tensors.emplace_back("a.b", Array::from<int64_t>({1, 2}, {7, -8}));
  tensors.emplace_back("p", Array::from<bool>({3}, std::vector<bool>{true, false, true}));
  tensors.emplace_back("c", Array::from<std::complex<float>>({1}, {{1.0f, -1.0f}}));
  write_safetensors(path, tensors, {{"k", "v"}, {"\xc3\xa9", "\"q\"\n"}});
  Safetensors back = read_safetensors(path);
  auto t = by_name(back);
  for (const auto& [name, a] : tensors) EXPECT_EQ(*t.at(name), a) << name;
  EXPECT_EQ(back.metadata.at("\xc3\xa9"), "\"q\"\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);  // no temporary left
  std::filesystem::remove_all(dir);
}

// safetensors' numpy writer names ml_dtypes' float8_e4m3fn F8_E4M3 (PyTorch's float8_e4m3fn too).
TEST(Safetensors, F8E4M3IsFloat8E4M3FN) {
  Safetensors s = read_safetensors(gen("f8.safetensors"));
  ASSERT_EQ(s.tensors.size(), 1u);
  const Array& x = s.tensors[0].second;
  EXPECT_EQ(x.dtype(), DType::f8E4M3FN);
  EXPECT_EQ(x.element_as_double(0), 1.0);
  EXPECT_EQ(x.element_as_double(1), 2.0);
  EXPECT_NE(serialize_safetensors(s.tensors, {}).find("\"F8_E4M3\""), std::string::npos);
}

TEST(Safetensors, RefusesADtypeHhloHasNoTypeFor) {
  // F4: float4_e2m1fn packed two to a byte, which no host array of ours is.
  std::string header = R"({"x":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}})";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  bytes += header + '\x12';
  try {
    parse_safetensors(std::as_bytes(std::span(bytes.data(), bytes.size())), "f4.safetensors");
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), HasSubstr("f4.safetensors"));
    EXPECT_THAT(e.what(), HasSubstr("tensor 'x' has dtype F4, which hhlo has no type for"));
  }
}

TEST(Safetensors, TheWriterRefusesWhatTheFormatCannotHold) {
  auto fails = [](std::vector<std::pair<std::string, Array>> t, const std::string& why,
                  std::map<std::string, std::string> meta = {}) {
    try {
      serialize_safetensors(t, meta);
      ADD_FAILURE() << "no error for " << why;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(why));
    }
  };
  fails({{"c", Array(DType::c128, {1})}}, "safetensors has no dtype for c128");
  fails({{"a", Array(DType::f32, {1})}, {"a", Array(DType::f32, {1})}}, "two tensors named 'a'");
  fails({{"__metadata__", Array(DType::f32, {1})}}, "the spec reserves the key");
  fails({{"bad\xff", Array(DType::f32, {1})}}, "not UTF-8");
  fails({}, "not UTF-8", {{"k", "\xc0"}});
  EXPECT_THROW(write_safetensors("", {}), IoError);
}

// ---- hostile files ---------------------------------------------------------------------------

/// A file of `header` (its length as the 8-byte prefix unless `length` is given) then `buffer`.
std::string file(const std::string& header, const std::string& buffer = "",
                 std::optional<uint64_t> length = std::nullopt) {
  uint64_t n = length.value_or(header.size());
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + buffer;
}

/// The message parse_safetensors gives for `bytes` ("(no error)" when it reads them).
std::string refusal(const std::string& bytes) {
  try {
    parse_safetensors(std::as_bytes(std::span(bytes.data(), bytes.size())), "hostile.safetensors");
  } catch (const IoError& e) {
    std::string m = e.what();
    EXPECT_THAT(m, HasSubstr("hostile.safetensors: not a valid safetensors file: "));
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;  // one line
    return m;
  }
  return "(no error)";
}

std::string f32x2(const std::string& name, uint64_t begin, uint64_t end) {
  return "\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[" +
         std::to_string(begin) + "," + std::to_string(end) + "]}";
}

TEST(Safetensors, RefusesHostileHeaders) {
  EXPECT_THAT(refusal("1234567"), HasSubstr("7 bytes, fewer than the 8-byte header length"));
  EXPECT_THAT(refusal(file("{}", "", 100'000'001)), HasSubstr("over the spec's limit"));
  EXPECT_THAT(refusal(file("{}", "", uint64_t{1} << 63)), HasSubstr("over the spec's limit"));
  EXPECT_THAT(refusal(file("{}", "", 3)), HasSubstr("header length 3 runs past the end"));
  EXPECT_THAT(refusal(file(" {}")), HasSubstr("does not begin with '{'"));
  EXPECT_THAT(refusal(file("{\"a\":")), HasSubstr("the header is not JSON"));
  EXPECT_THAT(refusal(file("{} x")), HasSubstr("the header is not JSON"));
  EXPECT_THAT(refusal(file("{\"\xff\":1}")), HasSubstr("the header is not JSON"));  // not UTF-8
  EXPECT_THAT(
      refusal(file("{" + f32x2("a", 0, 8) + "," + f32x2("a", 8, 16) + "}", std::string(16, '\0'))),
      HasSubstr("repeats the key \"a\""));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\"}}")),
              HasSubstr("repeats the key \"dtype\""));
  EXPECT_THAT(refusal(file("{\"__metadata__\":{\"k\":1}}")),
              HasSubstr("'__metadata__' entry 'k' is a JSON number, not a string"));
  EXPECT_THAT(refusal(file("{\"__metadata__\":[]}")), HasSubstr("not an object of strings"));
  EXPECT_THAT(refusal(file("{\"a\":1}")), HasSubstr("tensor 'a' is a JSON number"));
  EXPECT_THAT(refusal(file("{\"a\":{\"shape\":[],\"data_offsets\":[0,0]}}")),
              HasSubstr("tensor 'a' has no 'dtype'"));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,0]}}")),
              HasSubstr("tensor 'a' has no 'shape'"));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[]}}")),
              HasSubstr("tensor 'a' has no 'data_offsets'"));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"F128\",\"shape\":[],\"data_offsets\":[0,16]}}")),
              HasSubstr("dtype \"F128\", not one of the spec's"));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,0]}}")),
              HasSubstr("'shape' entry -1 is not a non-negative integer"));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}}")),
              HasSubstr("'shape' entry 2.0 is not a non-negative integer"));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}")),
              HasSubstr("'data_offsets' is not two non-negative integers"));
  std::string deep(100, '[');
  EXPECT_THAT(refusal(file("{\"a\":{\"x\":" + deep + std::string(100, ']') + "}}")),
              HasSubstr("nests deeper than 64 levels"));
}

TEST(Safetensors, RefusesShapesWhoseSizeOverflows) {
  // 2^63 does not fit a signed 64-bit dimension; 2^62 x 2 elements do not fit a 64-bit count;
  // 2^61 F64 elements need 2^64 bytes.
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"U8\",\"shape\":[9223372036854775808],"
                           "\"data_offsets\":[0,0]}}")),
              HasSubstr("dimension 9223372036854775808 does not fit"));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"U8\",\"shape\":[4611686018427387904,2],"
                           "\"data_offsets\":[0,0]}}")),
              HasSubstr("has more elements than 64 bits count"));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"F64\",\"shape\":[2305843009213693952],"
                           "\"data_offsets\":[0,0]}}")),
              HasSubstr("needs more bytes than 64 bits count"));
  EXPECT_THAT(refusal(file("{\"a\":{\"dtype\":\"U8\",\"shape\":[18446744073709551616],"
                           "\"data_offsets\":[0,0]}}")),
              HasSubstr("is not a non-negative integer"));  // past 2^64: JSON reads a float
}

TEST(Safetensors, RefusesOffsetsThatDoNotTileTheBuffer) {
  std::string b8(8, '\0'), b16(16, '\0');
  EXPECT_THAT(refusal(file("{" + f32x2("a", 0, 8) + "}", b8)), HasSubstr("(no error)"));
  EXPECT_THAT(refusal(file("{" + f32x2("a", 8, 16) + "}", b8)),
              HasSubstr("tensor 'a': data_offsets [8, 16] run past the byte buffer's end (8 "
                        "bytes)"));
  EXPECT_THAT(refusal(file("{" + f32x2("a", 0, 8) + "," + f32x2("b", 4, 12) + "}", b16)),
              HasSubstr("tensor 'b' (bytes 4 to 12) overlaps tensor 'a' (to byte 8)"));
  EXPECT_THAT(
      refusal(file("{" + f32x2("a", 0, 8) + "," + f32x2("b", 8, 16) + "," + f32x2("c", 0, 8) + "}",
                   b16)),
      HasSubstr("overlaps"));  // the same bytes twice
  EXPECT_THAT(refusal(file("{" + f32x2("a", 8, 16) + "}", b16)),
              HasSubstr("bytes 0 to 8 of the buffer belong to no tensor"));
  EXPECT_THAT(refusal(file("{" + f32x2("a", 0, 8) + "}", b16)),
              HasSubstr("bytes 8 to 16 of the buffer belong to no tensor"));
  EXPECT_THAT(refusal(file("{" + f32x2("a", 0, 12) + "}", b16)),
              HasSubstr("tensor 'a' of F32[2] needs 8 bytes, its data_offsets [0, 12] hold 12"));
  EXPECT_THAT(refusal(file("{" + f32x2("a", 8, 0) + "}", b16)),
              HasSubstr("data_offsets [8, 0] end before they begin"));
  EXPECT_THAT(refusal(file("{}", "x")),
              HasSubstr("bytes 0 to 1 of the buffer belong to no tensor"));
  // Header order is kept; the buffer need not follow it.
  Safetensors s = parse_safetensors(
      std::as_bytes(std::span(
          std::string_view(file("{" + f32x2("b", 8, 16) + "," + f32x2("a", 0, 8) + "}   ", b16)))),
      "ok");
  ASSERT_EQ(s.tensors.size(), 2u);
  EXPECT_EQ(s.tensors[0].first, "b");
}

TEST(Safetensors, RefusesEveryTruncationOfARealFile) {
  std::string whole = read_regular_file(gen("all_dtypes.safetensors"), "reference");
  for (std::size_t n = 0; n < whole.size(); ++n)
    EXPECT_NE(refusal(whole.substr(0, n)), "(no error)") << n << " bytes";
  EXPECT_EQ(refusal(whole), "(no error)");
}

}  // namespace
}  // namespace hhlo
