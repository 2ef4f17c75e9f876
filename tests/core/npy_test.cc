#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "hhlo/core/array.h"

namespace hhlo {
namespace {

std::string tmp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("hhlo_npy_" + name)).string();
}

TEST(Npy, RoundTripsEveryDtype) {
  for (DType t : kClassicDTypes) {
    Array a(t, {2, 3});
    auto* b = static_cast<unsigned char*>(a.data());
    for (std::size_t i = 0; i < a.byte_size(); ++i) b[i] = static_cast<unsigned char>(i * 7 + 1);
    if (t == DType::pred)
      for (std::size_t i = 0; i < a.byte_size(); ++i) b[i] = i % 2;
    std::string path = tmp_path(std::string(dtype_name(t)) + ".npy");
    write_npy(path, a);
    Array r = read_npy(path);
    EXPECT_EQ(r, a) << dtype_name(t);
  }
}

TEST(Npy, HeaderIsWhatNumpyWrites) {
  std::string s = serialize_npy(Array::from<float>({4}, {1, 2, 3, 4}));
  EXPECT_EQ(s.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(s.find("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }"), std::string::npos);
  EXPECT_EQ((s.size() - 16) % 64, 0u);  // data starts 64-byte aligned
  std::string s2 = serialize_npy(Array(DType::i32, {2, 3}));
  EXPECT_NE(s2.find("'shape': (2, 3)"), std::string::npos);
  std::string s0 = serialize_npy(Array::scalar<double>(1.5));
  EXPECT_NE(s0.find("'shape': ()"), std::string::npos);
}

// Bytes produced by numpy 2.x: np.save(f, np.array([[1, 2], [3, 4]], dtype=np.int16)).
TEST(Npy, ReadsNumpyBytes) {
  std::string header = "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + '\0' + header;
  const int16_t v[] = {1, 2, 3, 4};
  bytes.append(reinterpret_cast<const char*>(v), sizeof v);
  Array a = parse_npy(std::as_bytes(std::span(bytes.data(), bytes.size())), "mem");
  EXPECT_EQ(a.dtype(), DType::i16);
  EXPECT_EQ(a.dims(), (Dims{2, 2}));
  EXPECT_EQ(a.to_vector<int16_t>(), (std::vector<int16_t>{1, 2, 3, 4}));
}

std::string with_header(const std::string& dict) {
  std::string header = dict + "\n";
  return std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + '\0' + header;
}

TEST(Npy, RejectsTruncatedData) {
  std::string b = with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }") + "abcd";
  try {
    parse_npy(std::as_bytes(std::span(b.data(), b.size())), "t.npy");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("t.npy"), std::string::npos);
  }
}

TEST(Npy, RejectsUnsupportedDtypeAndBadMagic) {
  std::string b = with_header("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }");
  EXPECT_THROW(parse_npy(std::as_bytes(std::span(b.data(), b.size())), "u.npy"), IoError);
  std::string junk = "hello world, not npy";
  EXPECT_THROW(parse_npy(std::as_bytes(std::span(junk.data(), junk.size())), "j.npy"), IoError);
  EXPECT_THROW(read_npy("/nonexistent/dir/x.npy"), IoError);
  EXPECT_THROW(write_npy("/nonexistent/dir/x.npy", Array(DType::f32, {1})), IoError);
}

// ---- Values NumPy writes and users have (issue 8, section 6) ---------------------------------

Array parse(const std::string& b, const std::string& what = "mem.npy") {
  return parse_npy(std::as_bytes(std::span(b.data(), b.size())), what);
}

// The message of the IoError that parsing `b` as `what` throws (fails the test on no IoError).
std::string io_error(const std::string& b, const std::string& what) {
  try {
    parse(b, what);
  } catch (const IoError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no IoError for " << what;
  return {};
}

std::string data_file(const std::string& name) {
  return std::string(HHLO_GENERATED_DIR) + "/" + name;
}

TEST(Npy, BoolBytesOtherThanZeroOrOneAreReadAsTrue) {
  // NumPy's bool reads every nonzero byte as True; 2 must not reach a program as raw 2.
  std::string b = with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }");
  b += std::string("\x01\x00\x02\x01", 4);
  Array a = parse(b);
  EXPECT_EQ(a.dtype(), DType::pred);
  EXPECT_EQ(a.to_vector<bool>(), (std::vector<bool>{true, false, true, true}));
  const auto* raw = static_cast<const unsigned char*>(a.data());
  EXPECT_EQ(std::vector<int>(raw, raw + 4), (std::vector<int>{1, 0, 1, 1}));
}

TEST(Npy, ElementCountOverflowIsAnIoErrorNamingTheFile) {
  // 4611686018427387904 * 4 = 2^64 wraps to 0: it loaded as a 0-element array.
  std::string b =
      with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }");
  b += std::string(8, '\0');
  std::string path = tmp_path("overflow.npy");
  { std::ofstream(path, std::ios::binary) << b; }
  try {
    read_npy(path);
    FAIL() << "loaded a shape whose element count overflows";
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(path));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("(4611686018427387904, 4)"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("more elements than a 64-bit count holds"));
  }
  // Elements that fit in int64 but bytes that do not: 2^62 f8 elements are 2^65 bytes.
  std::string b2 =
      with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }");
  EXPECT_THAT(io_error(b2 + std::string(8, '\0'), "bytes.npy"),
              ::testing::HasSubstr("bytes.npy: not a valid .npy file: shape (4611686018427387904) "
                                   "of '<f8' needs more bytes than a 64-bit size holds"));
}

TEST(Array, ElementCountOverflowIsAnError) {
  try {
    Array a(DType::f32, {4611686018427387904, 4});
    FAIL() << "made an array of " << a.num_elements() << " elements";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("4611686018427387904x4"));
  }
  EXPECT_THROW(Array(DType::f64, {4611686018427387904}), Error);  // 2^65 bytes
  EXPECT_THROW(num_elements({4611686018427387904, 4}), Error);
  EXPECT_THROW((TensorType{DType::f64, {4611686018427387904}}.byte_size()), Error);
  EXPECT_EQ(num_elements({4611686018427387904, 1}), 4611686018427387904);
}

TEST(Npy, BigEndianBytesAreSwappedByHand) {
  // >f4 1.0 is 3f 80 00 00 and -2.5 is c0 20 00 00; >i2 300 is 01 2c and -2 is ff fe.
  std::string f = with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }") +
                  std::string("\x3f\x80\x00\x00\xc0\x20\x00\x00", 8);
  EXPECT_EQ(parse(f).to_vector<float>(), (std::vector<float>{1.0f, -2.5f}));
  std::string i = with_header("{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }") +
                  std::string("\x01\x2c\xff\xfe", 4);
  Array a = parse(i);
  EXPECT_EQ(a.dtype(), DType::i16);
  EXPECT_EQ(a.to_vector<int16_t>(), (std::vector<int16_t>{300, -2}));
}

TEST(Npy, NativeByteOrderEqualsSignIsLittleEndianHere) {
  static_assert(std::endian::native == std::endian::little,
                "the hand-made bytes are little-endian");
  std::string i = with_header("{'descr': '=i4', 'fortran_order': False, 'shape': (2,), }") +
                  std::string("\x07\x00\x00\x00\xff\xff\xff\xff", 8);
  EXPECT_EQ(parse(i).to_vector<int32_t>(), (std::vector<int32_t>{7, -1}));
  std::string u = with_header("{'descr': '=u2', 'fortran_order': False, 'shape': (1,), }") +
                  std::string("\x34\x12", 2);
  EXPECT_EQ(parse(u).to_vector<uint16_t>(), (std::vector<uint16_t>{0x1234}));
}

TEST(Npy, BigEndianFilesWrittenByNumpy) {
  Array f4 = read_npy(data_file("be_f4.npy"));  // (arange(6) * 1.5).reshape(2, 3), '>f4'
  EXPECT_EQ(f4.dims(), (Dims{2, 3}));
  EXPECT_EQ(f4.to_vector<float>(), (std::vector<float>{0, 1.5, 3, 4.5, 6, 7.5}));
  Array i2 = read_npy(data_file("be_i2.npy"));
  EXPECT_EQ(i2.to_vector<int16_t>(), (std::vector<int16_t>{0, -1, 2, -3, 300, -32768}));
  Array c8 = read_npy(data_file("be_c8.npy"));  // k + (10 + k)i: each part swapped on its own
  EXPECT_EQ(c8.to_vector<std::complex<float>>(),
            (std::vector<std::complex<float>>{{0, 10}, {1, 11}, {2, 12}}));
  Array f8 = read_npy(data_file("be_f8.npy"));
  EXPECT_EQ(f8.to_vector<double>(), (std::vector<double>{0.25, -2.0, 1e300}));
  Array bf = read_npy(data_file("be_bf16.npy"));  // ml_dtypes writes '>V2'
  EXPECT_EQ(bf.dtype(), DType::bf16);
  EXPECT_EQ((std::vector<double>{bf.element_as_double(0), bf.element_as_double(1),
                                 bf.element_as_double(2)}),
            (std::vector<double>{1, -2, 0.5}));
}

TEST(Npy, FortranOrderIsTransposedToTheLogicalArray) {
  // By hand: [[0, 1, 2], [3, 4, 5]] in column-major order is 0 3 1 4 2 5.
  std::string b = with_header("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }");
  for (int32_t v : {0, 3, 1, 4, 2, 5}) b.append(reinterpret_cast<const char*>(&v), 4);
  Array a = parse(b);
  EXPECT_EQ(a.dims(), (Dims{2, 3}));
  EXPECT_EQ(a.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Npy, FortranOrderFilesWrittenByNumpy) {
  std::vector<int32_t> k24(24);
  for (int i = 0; i < 24; ++i) k24[i] = i;
  Array f = read_npy(data_file("fortran_f4.npy"));  // asfortranarray(arange(6).reshape(2, 3))
  EXPECT_EQ(f.dims(), (Dims{2, 3}));
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  Array i3 = read_npy(data_file("fortran_i4_3d.npy"));  // arange(24).reshape(2, 3, 4)
  EXPECT_EQ(i3.dims(), (Dims{2, 3, 4}));
  EXPECT_EQ(i3.to_vector<int32_t>(), k24);
  Array be = read_npy(data_file("fortran_be_i8.npy"));  // arange(12).reshape(3, 4), '>i8'
  EXPECT_EQ(be.dims(), (Dims{3, 4}));
  EXPECT_EQ(be.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(Npy, HeaderWithoutClosingBraceIsAnIoError) {
  std::string b = with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ") + "abcd";
  EXPECT_THAT(io_error(b, "brace.npy"),
              ::testing::HasSubstr("brace.npy: not a valid .npy file: the header dict has no "
                                   "closing '}'"));
}

TEST(Npy, NegativeDimensionIsAnIoErrorNamingTheFile) {
  std::string b = with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }");
  EXPECT_THAT(io_error(b, "neg.npy"),
              ::testing::HasSubstr("neg.npy: not a valid .npy file: negative dimension -2 in "
                                   "'shape'"));
}

TEST(Npy, StructuredDtypeIsReportedAsStructured) {
  std::string b = with_header(
      "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,), }");
  std::string what = io_error(b, "rec.npy");
  EXPECT_THAT(what, ::testing::HasSubstr("rec.npy: not a valid .npy file: the dtype is "
                                         "structured"));
  EXPECT_THAT(what, ::testing::Not(::testing::HasSubstr("no 'descr'")));
}

TEST(Npy, UnclosedShapeTupleIsReportedAsUnclosed) {
  // The header as a truncated writer leaves it, and with the dict closed after it.
  for (std::string dict : {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,",
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (2, }"}) {
    std::string what = io_error(with_header(dict) + std::string(8, '\0'), "shape.npy");
    EXPECT_THAT(what, ::testing::HasSubstr("shape.npy: not a valid .npy file: the 'shape' tuple "
                                           "is not closed"))
        << dict;
    EXPECT_THAT(what, ::testing::Not(::testing::HasSubstr("no 'shape'")));
  }
}

TEST(Npy, HeaderLongerThan65535BytesIsWrittenAsFormat2) {
  // 30000 dimensions of size 1: "1, " * 30000 is ~90000 header bytes, past 1.0's u16 length.
  Array a(DType::i16, Dims(30000, 1));
  static_cast<int16_t*>(a.data())[0] = -7;
  std::string s = serialize_npy(a);
  ASSERT_EQ(s.substr(0, 8), std::string("\x93NUMPY\x02\x00", 8));
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t len = p[8] | (p[9] << 8) | (p[10] << 16) | (std::size_t{p[11]} << 24);
  EXPECT_GT(len, 65535u);
  EXPECT_EQ(12 + len + 2, s.size());  // header, then the one int16
  EXPECT_EQ((12 + len) % 64, 0u);     // data 64-byte aligned
  EXPECT_EQ(s[12 + len - 1], '\n');
  Array r = parse(s);
  EXPECT_EQ(r, a);
  EXPECT_EQ(r.to_vector<int16_t>(), (std::vector<int16_t>{-7}));
  // Below the limit the header stays format 1.0 (20000 dims: ~60000 bytes).
  std::string s1 = serialize_npy(Array(DType::i16, Dims(20000, 1)));
  EXPECT_EQ(s1.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  std::size_t len1 = static_cast<unsigned char>(s1[8]) | (static_cast<unsigned char>(s1[9]) << 8);
  EXPECT_EQ(10 + len1 + 2, s1.size());
  EXPECT_EQ(parse(s1).dims(), Dims(20000, 1));
}

TEST(Npy, AnEmptyFileIsSaidToBeEmpty) {
  // It said "missing \x93NUMPY magic" (issue 44).
  EXPECT_EQ(io_error("", "e.npy"), "e.npy: not a valid .npy file: it is empty (0 bytes)");
  EXPECT_EQ(io_error("\x93NUM", "short.npy"),
            "short.npy: not a valid .npy file: missing \\x93NUMPY magic");
}

}  // namespace
}  // namespace hhlo
