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
  std::string s = read_regular_file(path, ".npz file");
  return parse_npz(std::span(reinterpret_cast<const std::byte*>(s.data()), s.size()), path);
}

NpzArrays parse_npz(std::span<const std::byte> bytes, const std::string& path) {
  std::string s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  // A zip archive (what numpy.savez writes) starts with a local file header, or with the end of
  // central directory record when empty (APPNOTE 4.3.6).
  if (s.size() < 4 || (get32(s, 0) != 0x04034b50 && get32(s, 0) != 0x06054b50))
    throw IoError("load_npz: '" + path +
                  "' is not a zip archive (an .npz is one, as numpy.savez writes it)");
  NpzArrays out;
  size_t at = 0;
  while (at + 4 <= s.size() && get32(s, at) == 0x04034b50) {
    uint32_t flags = get16(s, at + 6), method = get16(s, at + 8);
    uint64_t csize = get32(s, at + 18), usize = get32(s, at + 22);
    uint32_t nlen = get16(s, at + 26), xlen = get16(s, at + 28);
    if (csize == 0xffffffffu || usize == 0xffffffffu) {
      // ZIP64 (APPNOTE 4.5.3): the sizes are in extra field 0x0001, uncompressed size first.
      // numpy.savez writes every member this way (zipfile's force_zip64).
      bool found = false;
      for (size_t x = at + 30 + nlen, end = x + xlen; x + 4 <= end;) {
        uint32_t id = get16(s, x), len = get16(s, x + 2);
        if (id == 0x0001) {
          size_t f = x + 4;
          auto get64 = [&](size_t i) { return get32(s, i) | uint64_t{get32(s, i + 4)} << 32; };
          if (usize == 0xffffffffu && f + 8 <= x + 4 + len) usize = get64(f), f += 8;
          if (csize == 0xffffffffu && f + 8 <= x + 4 + len) csize = get64(f), f += 8;
          found = true;
          break;
        }
        x += 4 + len;
      }
      if (!found || csize == 0xffffffffu || usize == 0xffffffffu)
        throw IoError("load_npz: '" + path + "': a ZIP64 member without its ZIP64 sizes");
    }
    if (flags & 0x8)
      throw IoError("load_npz: '" + path + "': members with data descriptors are not supported");
    std::string name = s.substr(at + 30, nlen);
    size_t data_at = at + 30 + nlen + xlen;
    if (csize > s.size() || data_at + csize > s.size())
      throw IoError("load_npz: '" + path + "' is truncated");
    std::string data;
    if (method == 0) {
      data = s.substr(data_at, csize);
    } else if (method == 8) {
      // Deflate expands at most about 1032:1: a member declaring more is corrupt, and would make
      // us allocate what the archive cannot hold (found by fuzzing, tests/fuzz).
      if (usize / 1032 > csize + 1)
        throw IoError("load_npz: '" + path + "': member '" + name + "' declares " +
                      std::to_string(usize) + " bytes uncompressed from " + std::to_string(csize) +
                      " compressed, more than deflate can expand to");
      data.resize(usize);
      z_stream z{};
      if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw IoError("load_npz: inflateInit2 failed");
      z.next_in = reinterpret_cast<Bytef*>(s.data() + data_at);
      z.avail_in = static_cast<uInt>(csize);
      z.next_out = reinterpret_cast<Bytef*>(data.data());
      z.avail_out = static_cast<uInt>(usize);
      int rc = inflate(&z, Z_FINISH);
      inflateEnd(&z);
      if (rc != Z_STREAM_END) throw IoError("load_npz: corrupt deflated member '" + name + "'");
    } else {
      throw IoError("load_npz: member '" + name + "' uses unsupported compression method " +
                    std::to_string(method));
    }
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) {
      std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data.data()),
                                       data.size());
      if (name.size() == 4)
        throw IoError("load_npz: '" + path + "': a member named '.npy' (no array name)");
      out.insert_or_assign(name.substr(0, name.size() - 4), parse_npy(bytes, path + ":" + name));
    }
    at = data_at + csize;
  }
  if (out.empty()) throw IoError("load_npz: '" + path + "' holds no .npy members");
  return out;
}

}  // namespace hhlo
