// NumPy .npy format: magic "\x93NUMPY", version byte pair, header length (u16 for 1.0, u32 for
// 2.0/3.0), a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}, then data.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "hhlo/core/array.h"

namespace hhlo {
namespace {

struct Descr {
  std::string_view text;
  DType dtype;
};
constexpr Descr kDescrs[] = {
    {"|b1", DType::pred}, {"|i1", DType::i8},   {"<i2", DType::i16},  {"<i4", DType::i32},
    {"<i8", DType::i64},  {"|u1", DType::ui8},  {"<u2", DType::ui16}, {"<u4", DType::ui32},
    {"<u8", DType::ui64}, {"<f2", DType::f16},  {"<V2", DType::bf16}, {"<f4", DType::f32},
    {"<f8", DType::f64},  {"<c8", DType::c64},  {"<c16", DType::c128},
};

DType dtype_from_descr(const std::string& d, const std::string& what) {
  for (const auto& e : kDescrs)
    if (e.text == d) return e.dtype;
  // NumPy also writes single-byte types with '<' or '|' interchangeably.
  if (d.size() >= 2 && (d[0] == '<' || d[0] == '|' || d[0] == '=')) {
    std::string alt = (d == "<b1" || d == "=b1") ? "|b1" : d;
    for (const auto& e : kDescrs)
      if (e.text.substr(1) == alt.substr(1) && byte_size(e.dtype) == 1) return e.dtype;
  }
  if (!d.empty() && d[0] == '>')
    throw IoError(fmt::format("{}: big-endian dtype '{}' is not supported; save it little-endian "
                              "(array.astype(array.dtype.newbyteorder('<')))",
                              what, d));
  throw IoError(fmt::format("{}: unsupported .npy dtype '{}' (supported: bool, int8..64, "
                            "uint8..64, float16/32/64, bfloat16 (<V2), complex64/128)",
                            what, d));
}

}  // namespace

Array parse_npy(std::span<const std::byte> bytes, const std::string& what) {
  auto bad = [&](const std::string& why) -> IoError {
    return IoError(fmt::format("{}: not a valid .npy file: {}", what, why));
  };
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0) throw bad("missing \\x93NUMPY magic");
  int major = p[6];
  std::size_t header_len, offset;
  if (major == 1) {
    header_len = p[8] | (p[9] << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw bad("truncated header");
    header_len = p[8] | (p[9] << 8) | (p[10] << 16) | (static_cast<std::size_t>(p[11]) << 24);
    offset = 12;
  } else {
    throw bad(fmt::format("unknown format version {}", major));
  }
  if (offset + header_len > bytes.size()) throw bad("truncated header");
  std::string header(reinterpret_cast<const char*>(p + offset), header_len);
  std::smatch m;
  static const std::regex descr_re(R"('descr'\s*:\s*'([^']*)')");
  static const std::regex fortran_re(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shape_re(R"('shape'\s*:\s*\(([^)]*)\))");
  if (!std::regex_search(header, m, descr_re)) throw bad("header has no 'descr'");
  DType dtype = dtype_from_descr(m[1].str(), what);
  if (!std::regex_search(header, m, fortran_re)) throw bad("header has no 'fortran_order'");
  if (m[1].str() == "True")
    throw IoError(what + ": Fortran-order .npy arrays are not supported; save a C-order array "
                         "(numpy.ascontiguousarray) instead");
  if (!std::regex_search(header, m, shape_re)) throw bad("header has no 'shape'");
  Dims dims;
  std::stringstream ss(m[1].str());
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \tL");
    if (b == std::string::npos) continue;
    try {
      dims.push_back(std::stoll(item.substr(b, e - b + 1)));
    } catch (const std::exception&) {
      throw bad("bad shape entry '" + item + "'");
    }
  }
  Array a(dtype, dims);
  std::size_t data_offset = offset + header_len;
  if (bytes.size() - data_offset < a.byte_size())
    throw IoError(fmt::format("{}: truncated .npy data: {} needs {} bytes, file has {}", what,
                              a.type().to_string(), a.byte_size(), bytes.size() - data_offset));
  if (a.byte_size()) std::memcpy(a.data(), p + data_offset, a.byte_size());
  return a;
}

Array read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open .npy file '" + path + "': " + std::strerror(errno));
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_npy(std::as_bytes(std::span(content.data(), content.size())), path);
}

std::string serialize_npy(const Array& a) {
  std::string_view descr;
  for (const auto& e : kDescrs)
    if (e.dtype == a.dtype()) descr = e.text;
  std::string shape = fmt::format("{}", fmt::join(a.dims(), ", "));
  if (a.rank() == 1) shape += ',';  // "(4,)" but "(2, 3)" and "()"
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, shape);
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(a.data()), a.byte_size());
  return out;
}

void write_npy(const std::string& path, const Array& a) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw IoError("cannot write .npy file '" + path + "': " + std::strerror(errno));
  std::string bytes = serialize_npy(a);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw IoError("error while writing .npy file '" + path + "'");
}

}  // namespace hhlo
