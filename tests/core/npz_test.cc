// read_npz / parse_npz (hhlo/core/npz.h) read members through the central directory, whose sizes
// are authoritative: members with data descriptors (a zip written to a stream that cannot seek:
// numpy.savez to a pipe, Java's ZipOutputStream) read as NumPy reads them (issue 44).
#include "hhlo/core/npz.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "hhlo/core/error.h"

namespace hhlo {
namespace {

void put16(std::string& s, uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& s, uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}

/// CRC-32 (ISO 3309, the zip one), bit by bit: the test's own, not zlib's.
uint32_t crc32_of(const std::string& data) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/// What a sizes-later zip writer (Java's ZipOutputStream) writes for one stored member `name`
/// holding `data`: a local header with flag bit 3 and zero CRC and sizes, the data, a data
/// descriptor (signature, CRC, sizes), then the central directory (with `crc`, `csize`, `usize`,
/// `method` as given) and its end record.
std::string descriptor_zip(const std::string& name, const std::string& data, uint32_t crc,
                           uint32_t csize, uint32_t usize, uint32_t method = 0) {
  std::string z;
  put32(z, 0x04034b50);
  put16(z, 20);
  put16(z, 0x8);  // flags: data descriptor
  put16(z, method);
  put16(z, 0);
  put16(z, 0x21);
  put32(z, 0);  // crc, sizes: after the data
  put32(z, 0);
  put32(z, 0);
  put16(z, static_cast<uint32_t>(name.size()));
  put16(z, 0);
  z += name + data;
  put32(z, 0x08074b50);
  put32(z, crc);
  put32(z, csize);
  put32(z, usize);
  auto cd_offset = static_cast<uint32_t>(z.size());
  std::string cd;
  put32(cd, 0x02014b50);
  put16(cd, 20);
  put16(cd, 20);
  put16(cd, 0x8);
  put16(cd, method);
  put16(cd, 0);
  put16(cd, 0x21);
  put32(cd, crc);
  put32(cd, csize);
  put32(cd, usize);
  put16(cd, static_cast<uint32_t>(name.size()));
  put16(cd, 0);
  put16(cd, 0);
  put16(cd, 0);
  put16(cd, 0);
  put32(cd, 0);
  put32(cd, 0);  // the local header's offset
  cd += name;
  z += cd;
  put32(z, 0x06054b50);
  put16(z, 0);
  put16(z, 0);
  put16(z, 1);
  put16(z, 1);
  put32(z, static_cast<uint32_t>(cd.size()));
  put32(z, cd_offset);
  put16(z, 0);
  return z;
}

NpzArrays parse(const std::string& bytes) {
  return parse_npz(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()),
                   "t.npz");
}

std::string refusal(const std::string& bytes) {
  try {
    parse(bytes);
  } catch (const IoError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(NpzDataDescriptors, NumpySavezToAPipeStoredAndDeflated) {
  // tests/core/gen_npy_files.py: np.savez / np.savez_compressed to an unseekable stream, each
  // member with flag bit 3 (asserted there): w = arange(4) as <f4, m = arange(6).reshape(2, 3)
  // as <i8, as np.load reads them.
  for (const char* name : {"streamed.npz", "streamed_deflated.npz"}) {
    SCOPED_TRACE(name);
    NpzArrays a = read_npz(std::string(HHLO_GENERATED_DIR) + "/" + name);
    ASSERT_EQ(a.size(), 2u);
    EXPECT_EQ(a.at("w").to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
    EXPECT_EQ(a.at("m").dims(), (Dims{2, 3}));
    EXPECT_EQ(a.at("m").to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  }
}

TEST(NpzDataDescriptors, AZipOutputStreamStyleMemberWithZeroLocalSizes) {
  // The .npy bytes by hand (format 1.0): magic, version, header length 118 (10 + 118 = 128),
  // the header padded with spaces to a newline, then [1.5, -2, 4] as little-endian f32.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  header.resize(117, ' ');
  header += '\n';
  std::string npy = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + header +
                    std::string("\x00\x00\xc0\x3f\x00\x00\x00\xc0\x00\x00\x80\x40", 12);
  auto n = static_cast<uint32_t>(npy.size());
  NpzArrays a = parse(descriptor_zip("v.npy", npy, crc32_of(npy), n, n));
  EXPECT_EQ(a.at("v").to_vector<float>(), (std::vector<float>{1.5f, -2.0f, 4.0f}));
  // A damaged byte fails the CRC-32 the central directory gives.
  std::string bad = npy;
  bad.back() ^= 1;
  EXPECT_NE(refusal(descriptor_zip("v.npy", bad, crc32_of(npy), n, n)).find("fails its CRC-32"),
            std::string::npos);
}

TEST(NpzCentralDirectory, ADeflatedMemberDeclaringMoreThanDeflateCanHoldIsRefusedUnread) {
  // The fuzz find (tests/fuzz/regressions/npz) through the central directory: 4294967123 bytes
  // declared from 5 compressed would be allocated before inflating.
  std::string z = descriptor_zip("x.npy", "KKKKK", 0, 5, 4294967123u, /*method=*/8);
  EXPECT_NE(refusal(z).find("declares 4294967123 bytes uncompressed from 5 compressed"),
            std::string::npos)
      << refusal(z);
}

TEST(NpzCentralDirectory, AnArchiveWithoutItsEndRecordIsTruncated) {
  std::string z = descriptor_zip("x.npy", "abc", crc32_of("abc"), 3, 3);
  EXPECT_EQ(refusal(z.substr(0, z.size() - 22)),
            "load_npz: 't.npz' is truncated (no end of central directory record: a zip's last "
            "part)");
  // A central directory pointing past the end.
  std::string past = z;
  past[past.size() - 6] = '\x7f';
  EXPECT_NE(refusal(past).find("its central directory lies past the end"), std::string::npos)
      << refusal(past);
}

TEST(NpzDataDescriptors, AnArchiveReadAsAnNpyFileSaysWhatItIs) {
  // `hhlo run p.mlir -i <(cat x.npz)`: the path says nothing; the bytes do.
  std::string z = descriptor_zip("x.npy", "abc", crc32_of("abc"), 3, 3);
  try {
    parse_npy(std::span(reinterpret_cast<const std::byte*>(z.data()), z.size()), "/dev/fd/63");
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/dev/fd/63: not a valid .npy file: missing \\x93NUMPY magic: it is a zip archive "
              "(an .npz?), read as one when its path ends in .npz or when it is the only input");
  }
}

}  // namespace
}  // namespace hhlo
