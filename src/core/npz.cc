// Minimal zip writer/reader for .npz (PKWARE APPNOTE 4.3: local headers, central directory, end
// record; ZIP64 sizes are read, as numpy.savez writes them; no encryption).
#include "hhlo/core/npz.h"

#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "hhlo/core/file_io.h"

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
uint32_t get16(const std::string& s, size_t at) {
  if (at + 2 > s.size()) throw IoError("npz: truncated archive");
  return static_cast<uint8_t>(s[at]) | static_cast<uint32_t>(static_cast<uint8_t>(s[at + 1])) << 8;
}
uint32_t get32(const std::string& s, size_t at) { return get16(s, at) | get16(s, at + 2) << 16; }

}  // namespace

void write_npz(const std::string& path, const NpzArrays& arrays) {
  std::string out, central;
  uint32_t count = 0;
  for (const auto& [name, array] : arrays) {
    if (name.empty()) throw Error("write_npz: an array with an empty name (a member needs one)");
    std::string data = serialize_npy(array), fname = name + ".npy";
    uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    auto offset = static_cast<uint32_t>(out.size());
    auto size = static_cast<uint32_t>(data.size());
    put32(out, 0x04034b50);  // local file header
    put16(out, 20);
    put16(out, 0);
    put16(out, 0);  // version, flags, method = stored
    put16(out, 0);
    put16(out, 0x21);  // time, date (1980-01-01)
    put32(out, crc);
    put32(out, size);
    put32(out, size);
    put16(out, static_cast<uint32_t>(fname.size()));
    put16(out, 0);
    out += fname;
    out += data;
    put32(central, 0x02014b50);  // central directory header
    put16(central, 20);
    put16(central, 20);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0x21);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, static_cast<uint32_t>(fname.size()));
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put32(central, 0);
    put32(central, offset);
    central += fname;
    ++count;
  }
  auto cd_offset = static_cast<uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, count);
  put16(out, count);
  put32(out, static_cast<uint32_t>(central.size()));
  put32(out, cd_offset);
  put16(out, 0);
  write_file_atomically(path, out, ".npz file");
}

NpzArrays read_npz(const std::string& path) {
  std::string s = read_file(path, ".npz file");
  return parse_npz(std::span(reinterpret_cast<const std::byte*>(s.data()), s.size()), path);
}

namespace {

uint64_t get64(const std::string& s, size_t at) {
  return get32(s, at) | uint64_t{get32(s, at + 4)} << 32;
}

/// Where the central directory lies and how many entries it holds (APPNOTE 4.3.16, and 4.3.14
/// for ZIP64: numpy.savez writes ZIP64 records when an archive needs them).
struct CentralDirectory {
  uint64_t offset = 0, size = 0, count = 0;
};

CentralDirectory find_central_directory(const std::string& s, const std::string& path) {
  // The end record is the last 22 bytes but for a comment of at most 65535 bytes.
  if (s.size() < 22)
    throw IoError("load_npz: '" + path + "' is truncated (no end of central directory)");
  size_t lowest = s.size() > 22 + 65535 ? s.size() - 22 - 65535 : 0;
  size_t end = s.size() - 22;
  while (get32(s, end) != 0x06054b50) {
    if (end == lowest)
      throw IoError("load_npz: '" + path +
                    "' is truncated (no end of central directory record: a zip's last part)");
    --end;
  }
  CentralDirectory cd{get32(s, end + 16), get32(s, end + 12), get16(s, end + 10)};
  if (cd.offset == 0xffffffffu || cd.size == 0xffffffffu || cd.count == 0xffff) {
    // The ZIP64 end of central directory locator, just before the end record (APPNOTE 4.3.15).
    if (end < 20 || get32(s, end - 20) != 0x07064b50)
      throw IoError("load_npz: '" + path + "': a ZIP64 archive without its ZIP64 end record");
    uint64_t at = get64(s, end - 20 + 8);
    if (at > s.size() || get32(s, at) != 0x06064b50)
      throw IoError("load_npz: '" + path + "': its ZIP64 end record is missing or damaged");
    cd = {get64(s, at + 48), get64(s, at + 40), get64(s, at + 32)};
  }
  if (cd.offset > s.size() || cd.size > s.size() - cd.offset)
    throw IoError("load_npz: '" + path +
                  "' is truncated (its central directory lies past the end)");
  return cd;
}

/// One member as its central directory entry describes it: these sizes are authoritative (a
/// member with a data descriptor, flag bit 3, has zeros in its local header: a zip written to a
/// stream that cannot seek, as numpy.savez to a pipe or Java's ZipOutputStream write).
struct Member {
  std::string name;
  uint32_t flags = 0, method = 0, crc = 0;
  uint64_t csize = 0, usize = 0, local = 0;
};

/// The entry at `at` (advanced past it).
Member read_entry(const std::string& s, size_t& at, const std::string& path) {
  if (get32(s, at) != 0x02014b50)
    throw IoError("load_npz: '" + path + "': its central directory is damaged");
  Member m;
  m.flags = get16(s, at + 8);
  m.method = get16(s, at + 10);
  m.crc = get32(s, at + 16);
  m.csize = get32(s, at + 20);
  m.usize = get32(s, at + 24);
  uint32_t nlen = get16(s, at + 28), xlen = get16(s, at + 30), clen = get16(s, at + 32);
  m.local = get32(s, at + 42);
  if (at + 46 + nlen > s.size()) throw IoError("load_npz: '" + path + "' is truncated");
  m.name = s.substr(at + 46, nlen);
  // ZIP64 (APPNOTE 4.5.3): extra field 0x0001 holds, in this order, each of the uncompressed
  // size, the compressed size and the local header's offset that reads 0xffffffff above.
  for (size_t x = at + 46 + nlen, stop = x + xlen; x + 4 <= stop;) {
    uint32_t id = get16(s, x), len = get16(s, x + 2);
    if (id == 0x0001) {
      size_t f = x + 4, last = x + 4 + len;
      if (m.usize == 0xffffffffu && f + 8 <= last) m.usize = get64(s, f), f += 8;
      if (m.csize == 0xffffffffu && f + 8 <= last) m.csize = get64(s, f), f += 8;
      if (m.local == 0xffffffffu && f + 8 <= last) m.local = get64(s, f), f += 8;
      break;
    }
    x += 4 + len;
  }
  if (m.csize == 0xffffffffu || m.usize == 0xffffffffu || m.local == 0xffffffffu)
    throw IoError("load_npz: '" + path + "': a ZIP64 member without its ZIP64 sizes");
  at += 46 + nlen + xlen + clen;
  return m;
}

/// The member's bytes, uncompressed and checked against its CRC-32.
std::string member_data(const std::string& s, const Member& m, const std::string& path) {
  if (m.flags & 0x1)
    throw IoError("load_npz: '" + path + "': member '" + m.name + "' is encrypted");
  if (m.local > s.size() || get32(s, m.local) != 0x04034b50)
    throw IoError("load_npz: '" + path + "': member '" + m.name +
                  "' has no local header where its central directory entry points");
  uint64_t data_at = m.local + 30 + get16(s, m.local + 26) + get16(s, m.local + 28);
  if (data_at > s.size() || m.csize > s.size() - data_at)
    throw IoError("load_npz: '" + path + "' is truncated");
  std::string data;
  if (m.method == 0) {
    if (m.usize != m.csize)
      throw IoError("load_npz: '" + path + "': stored member '" + m.name +
                    "' declares different compressed and uncompressed sizes");
    data = s.substr(data_at, m.csize);
  } else if (m.method == 8) {
    // Deflate expands at most about 1032:1: a member declaring more is corrupt, and would make
    // us allocate what the archive cannot hold (found by fuzzing, tests/fuzz).
    if (m.usize / 1032 > m.csize + 1)
      throw IoError("load_npz: '" + path + "': member '" + m.name + "' declares " +
                    std::to_string(m.usize) + " bytes uncompressed from " +
                    std::to_string(m.csize) + " compressed, more than deflate can expand to");
    data.resize(m.usize);
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw IoError("load_npz: inflateInit2 failed");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()) + data_at);
    z.avail_in = static_cast<uInt>(m.csize);
    z.next_out = reinterpret_cast<Bytef*>(data.data());
    z.avail_out = static_cast<uInt>(m.usize);
    int rc = inflate(&z, Z_FINISH);
    bool whole = z.total_out == m.usize;
    inflateEnd(&z);
    if (rc != Z_STREAM_END || !whole)
      throw IoError("load_npz: corrupt deflated member '" + m.name + "'");
  } else {
    throw IoError("load_npz: member '" + m.name + "' uses unsupported compression method " +
                  std::to_string(m.method));
  }
  uint32_t crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
  if (crc != m.crc)
    throw IoError("load_npz: '" + path + "': member '" + m.name +
                  "' fails its CRC-32 check (the archive is damaged)");
  return data;
}

}  // namespace

NpzArrays parse_npz(std::span<const std::byte> bytes, const std::string& path) {
  std::string s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  // A zip archive (what numpy.savez writes) starts with a local file header, or with the end of
  // central directory record when empty (APPNOTE 4.3.6).
  if (s.size() < 4 || (get32(s, 0) != 0x04034b50 && get32(s, 0) != 0x06054b50))
    throw IoError("load_npz: '" + path +
                  "' is not a zip archive (an .npz is one, as numpy.savez writes it)");
  // The members as the central directory lists them, as NumPy (Python's zipfile) reads them.
  CentralDirectory cd = find_central_directory(s, path);
  NpzArrays out;
  size_t at = cd.offset;
  for (uint64_t i = 0; i < cd.count; ++i) {
    Member m = read_entry(s, at, path);
    if (m.name.size() < 4 || m.name.compare(m.name.size() - 4, 4, ".npy") != 0) continue;
    if (m.name.size() == 4)
      throw IoError("load_npz: '" + path + "': a member named '.npy' (no array name)");
    std::string data = member_data(s, m, path);
    std::span<const std::byte> member(reinterpret_cast<const std::byte*>(data.data()), data.size());
    out.insert_or_assign(m.name.substr(0, m.name.size() - 4),
                         parse_npy(member, path + ":" + m.name));
  }
  if (out.empty()) throw IoError("load_npz: '" + path + "' holds no .npy members");
  return out;
}

}  // namespace hhlo
