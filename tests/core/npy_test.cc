#include <gtest/gtest.h>

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
  for (DType t : kAllDTypes) {
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

TEST(Npy, RejectsFortranOrder) {
  std::string b = with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }") + "abcd";
  EXPECT_THROW(
      {
        try {
          parse_npy(std::as_bytes(std::span(b.data(), b.size())), "f.npy");
        } catch (const IoError& e) {
          EXPECT_NE(std::string(e.what()).find("Fortran"), std::string::npos);
          throw;
        }
      },
      IoError);
}

TEST(Npy, RejectsUnsupportedDtypeAndBadMagic) {
  std::string b = with_header("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }");
  EXPECT_THROW(parse_npy(std::as_bytes(std::span(b.data(), b.size())), "u.npy"), IoError);
  std::string big = with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }") + "abcd";
  EXPECT_THROW(parse_npy(std::as_bytes(std::span(big.data(), big.size())), "b.npy"), IoError);
  std::string junk = "hello world, not npy";
  EXPECT_THROW(parse_npy(std::as_bytes(std::span(junk.data(), junk.size())), "j.npy"), IoError);
  EXPECT_THROW(read_npy("/nonexistent/dir/x.npy"), IoError);
  EXPECT_THROW(write_npy("/nonexistent/dir/x.npy", Array(DType::f32, {1})), IoError);
}

}  // namespace
}  // namespace hhlo
