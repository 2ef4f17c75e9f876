// NumPy .npy format (numpy/lib/format.py, "NPY format"): magic "\x93NUMPY", version byte pair,
// header length (u16 for 1.0, u32 for 2.0/3.0), a Python dict literal
// {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with spaces and ended by '\n', then
// the data.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#include "hhlo/core/array.h"
#include "hhlo/core/file_io.h"

namespace hhlo {
namespace {

// descr without its byte-order character -> dtype. bfloat16 is written by ml_dtypes as void
// "V2" (with the byte order of the dtype: '<V2', or '>V2' for a byte-swapped one).
struct Kind {
  std::string_view text;
  DType dtype;
};
constexpr Kind kKinds[] = {
    {"b1", DType::pred}, {"i1", DType::i8},  {"i2", DType::i16},   {"i4", DType::i32},
    {"i8", DType::i64},  {"u1", DType::ui8}, {"u2", DType::ui16},  {"u4", DType::ui32},
    {"u8", DType::ui64}, {"f2", DType::f16}, {"V2", DType::bf16},  {"f4", DType::f32},
    {"f8", DType::f64},  {"c8", DType::c64}, {"c16", DType::c128},
};

struct Descr {
  DType dtype;
  bool swap;  // stored in the other byte order than this machine's
};

// A descr such as '<f4', '>i2', '=u8', '|b1'. '=' and '|' (and no order character) mean the
// native order, as in NumPy's dtype parser.
Descr parse_descr(const std::string& d, const std::string& what) {
  std::string_view kind = d;
  bool big = std::endian::native == std::endian::big;
  if (!kind.empty() && (kind[0] == '<' || kind[0] == '>' || kind[0] == '=' || kind[0] == '|')) {
    if (kind[0] == '<') big = false;
    if (kind[0] == '>') big = true;
    kind.remove_prefix(1);
  }
  for (const auto& k : kKinds)
    if (k.text == kind) {
      bool swap = byte_size(k.dtype) > 1 && big != (std::endian::native == std::endian::big);
      return {k.dtype, swap};
    }
  // ml_dtypes' one-byte types (int4, float8_e4m3fn, ...) as np.save writes them: raw bytes, read
  // as ui8; a program's parameter of a narrow type takes them as its bits.
  if (kind == "V1") return {DType::ui8, false};
  throw IoError(
      fmt::format("{}: unsupported .npy dtype '{}' (supported: bool, int8..64, "
                  "uint8..64, float16/32/64, bfloat16 (V2), complex64/128, the one-byte "
                  "ml_dtypes types (V1: int4, float8_e4m3fn, ...), in either "
                  "byte order)",
                  what, d));
}

// A recursive-descent reader of the header dict: exactly the Python literal forms NumPy writes
// (strings, True/False, tuples of integers), with NumPy's rule that the keys are exactly
// 'descr', 'fortran_order' and 'shape'.
class HeaderReader {
 public:
  HeaderReader(std::string_view text, const std::string& what) : s_(text), what_(what) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    Dims shape;
  };

  Header read() {
    Header h;
    bool has_descr = false, has_fortran = false, has_shape = false;
    skip_ws();
    if (!eat('{')) throw bad("the header is not a dict (it does not start with '{')");
    while (true) {
      skip_ws();
      if (eat('}')) break;
      if (at_end()) throw bad("the header dict has no closing '}'");
      std::string key = read_string("a dict key");
      skip_ws();
      if (!eat(':')) throw bad(fmt::format("':' expected after key '{}'", key));
      skip_ws();
      if (key == "descr") {
        if (peek() == '[')
          throw bad(
              "the dtype is structured (a list of fields in 'descr'); only plain numeric "
              "and bool dtypes are supported");
        h.descr = read_string("the 'descr' string");
        has_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = read_bool("'fortran_order'");
        has_fortran = true;
      } else if (key == "shape") {
        h.shape = read_shape();
        has_shape = true;
      } else {
        throw bad(
            fmt::format("unexpected key '{}' in the header dict (NumPy writes only "
                        "'descr', 'fortran_order' and 'shape')",
                        key));
      }
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat('}')) break;
      if (at_end()) throw bad("the header dict has no closing '}'");
      throw bad(fmt::format("',' or '}}' expected in the header dict at '{}'", rest()));
    }
    skip_ws();
    if (!at_end()) throw bad(fmt::format("unexpected text after the header dict: '{}'", rest()));
    if (!has_descr) throw bad("the header dict has no 'descr'");
    if (!has_fortran) throw bad("the header dict has no 'fortran_order'");
    if (!has_shape) throw bad("the header dict has no 'shape'");
    return h;
  }

  IoError bad(const std::string& why) const {
    return IoError(fmt::format("{}: not a valid .npy file: {}", what_, why));
  }

 private:
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  void skip_ws() {
    while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  std::string rest() const {
    std::string r(s_.substr(i_, 20));
    std::replace(r.begin(), r.end(), '\n', ' ');
    return r;
  }
  std::string read_string(const char* what) {
    char q = peek();
    if (q != '\'' && q != '"') throw bad(fmt::format("{} expected at '{}'", what, rest()));
    ++i_;
    std::size_t end = s_.find(q, i_);
    if (end == std::string_view::npos) throw bad(fmt::format("{} is not closed", what));
    std::string v(s_.substr(i_, end - i_));
    i_ = end + 1;
    return v;
  }
  bool read_bool(const char* what) {
    if (s_.substr(i_, 4) == "True") return i_ += 4, true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, false;
    throw bad(fmt::format("{} must be True or False, found '{}'", what, rest()));
  }
  Dims read_shape() {
    if (!eat('(')) throw bad(fmt::format("'shape' must be a tuple, found '{}'", rest()));
    Dims dims;
    while (true) {
      skip_ws();
      if (eat(')')) return dims;
      if (at_end()) throw bad("the 'shape' tuple is not closed (no ')')");
      std::size_t start = i_;
      bool negative = eat('-');
      uint64_t v = 0;
      bool any = false, overflow = false;
      while (!at_end() && s_[i_] >= '0' && s_[i_] <= '9') {
        any = true;
        uint64_t digit = static_cast<uint64_t>(s_[i_++] - '0');
        if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10)
          overflow = true;
        else
          v = v * 10 + digit;
      }
      if (!any && (peek() == '}' || peek() == '\n'))
        throw bad("the 'shape' tuple is not closed (no ')')");
      if (!any) throw bad(fmt::format("bad entry in 'shape' at '{}'", rest()));
      eat('L');  // Python 2 long literal
      std::string entry(s_.substr(start, i_ - start));
      if (negative) throw bad(fmt::format("negative dimension {} in 'shape'", entry));
      if (overflow)
        throw bad(fmt::format("dimension {} in 'shape' does not fit in 64 bits", entry));
      dims.push_back(static_cast<int64_t>(v));
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat(')')) return dims;
      if (at_end()) throw bad("the 'shape' tuple is not closed (no ')')");
      throw bad(fmt::format("',' or ')' expected in 'shape' at '{}'", rest()));
    }
  }

  std::string_view s_;
  const std::string& what_;
  std::size_t i_ = 0;
};

// Reverses the bytes of every `unit`-byte word of `data` (`size` bytes).
void swap_bytes(std::byte* data, std::size_t size, std::size_t unit) {
  for (std::size_t at = 0; at + unit <= size; at += unit) std::reverse(data + at, data + at + unit);
}

// Copies column-major (Fortran order) `src` into row-major `dst`, both of type dtype/dims.
void fortran_to_c(const std::byte* src, std::byte* dst, const Dims& dims, std::size_t elem) {
  const std::size_t rank = dims.size();
  const int64_t n = num_elements(dims);
  if (rank < 2) {  // one dimension: both orders are the same
    std::memcpy(dst, src, static_cast<std::size_t>(n) * elem);
    return;
  }
  if (n == 0) return;
  Dims stride = dims, index = dims;  // element strides of the Fortran layout; the C index
  int64_t s = 1;
  for (std::size_t k = 0; k < rank; ++k) stride[k] = s, s *= dims[k], index[k] = 0;
  int64_t from = 0;
  for (int64_t to = 0; to < n; ++to) {
    std::memcpy(dst + to * elem, src + from * elem, elem);
    for (std::size_t k = rank; k-- > 0;) {  // row-major increment: last dimension fastest
      if (++index[k] < dims[k]) {
        from += stride[k];
        break;
      }
      from -= stride[k] * (dims[k] - 1);
      index[k] = 0;
    }
  }
}

}  // namespace

Array parse_npy(std::span<const std::byte> bytes, const std::string& what) {
  auto bad = [&](const std::string& why) -> IoError {
    return IoError(fmt::format("{}: not a valid .npy file: {}", what, why));
  };
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.empty()) throw bad("it is empty (0 bytes)");
  if (bytes.size() >= 4 && std::memcmp(p, "PK\x03\x04", 4) == 0)  // `-i <(cat x.npz)`
    throw bad(
        "missing \\x93NUMPY magic: it is a zip archive (an .npz?), read as one when its path ends "
        "in .npz or when it is the only input");
  if (bytes.size() < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0)
    throw bad("missing \\x93NUMPY magic");
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
  std::string_view text(reinterpret_cast<const char*>(p + offset), header_len);
  HeaderReader reader(text, what);
  HeaderReader::Header h = reader.read();
  Descr descr = parse_descr(h.descr, what);

  // The element count and byte size, checked before anything is allocated.
  const std::size_t elem = byte_size(descr.dtype);
  uint64_t count = 1;
  for (int64_t d : h.shape)
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count) ||
        count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw bad(fmt::format("shape ({}) has more elements than a 64-bit count holds",
                            fmt::join(h.shape, ", ")));
  uint64_t need;
  if (__builtin_mul_overflow(count, static_cast<uint64_t>(elem), &need) ||
      need > std::numeric_limits<std::size_t>::max() - 64)
    throw bad(fmt::format("shape ({}) of '{}' needs more bytes than a 64-bit size holds",
                          fmt::join(h.shape, ", "), h.descr));
  std::size_t data_offset = offset + header_len;
  if (bytes.size() - data_offset < need)
    throw IoError(
        fmt::format("{}: truncated .npy data: shape ({}) of '{}' needs {} bytes, file "
                    "has {}",
                    what, fmt::join(h.shape, ", "), h.descr, need, bytes.size() - data_offset));

  Array a(descr.dtype, h.shape);
  auto* out = static_cast<std::byte*>(a.data());
  const auto* in = reinterpret_cast<const std::byte*>(p + data_offset);
  if (a.byte_size()) {
    if (h.fortran_order)
      fortran_to_c(in, out, a.dims(), elem);
    else
      std::memcpy(out, in, a.byte_size());
  }
  if (descr.swap) swap_bytes(out, a.byte_size(), is_complex(descr.dtype) ? elem / 2 : elem);
  if (descr.dtype == DType::pred)  // NumPy reads any nonzero byte as True
    for (std::size_t i = 0; i < a.byte_size(); ++i) out[i] = std::byte{out[i] != std::byte{0}};
  return a;
}

Array read_npy(const std::string& path) {
  std::string content = read_file(path, ".npy file");
  return parse_npy(std::as_bytes(std::span(content.data(), content.size())), path);
}

std::string serialize_npy(const Array& a) {
  std::string_view descr;
  for (const auto& k : kKinds)
    if (k.dtype == a.dtype()) descr = k.text;
  if (is_narrow(a.dtype())) descr = "V1";  // as np.save writes an ml_dtypes int4/float8 array
  const char order = is_narrow(a.dtype())                      ? '<'
                     : byte_size(a.dtype()) == 1               ? '|'
                     : std::endian::native == std::endian::big ? '>'
                                                               : '<';
  std::string shape = fmt::format("{}", fmt::join(a.dims(), ", "));
  if (a.rank() == 1) shape += ',';  // "(4,)" but "(2, 3)" and "()"
  std::string header = fmt::format("{{'descr': '{}{}', 'fortran_order': False, 'shape': ({}), }}",
                                   order, descr, shape);
  // As numpy.lib.format: version 1.0 (u16 length) when the padded header fits, else 2.0 (u32);
  // the data starts at a multiple of 64 bytes.
  auto padded = [&](std::size_t preamble) {
    std::size_t total = preamble + header.size() + 1;
    return header.size() + (64 - total % 64) % 64 + 1;
  };
  const bool v2 = padded(10) > 0xffff;
  const std::size_t len = padded(v2 ? 12 : 10);
  if (len > 0xffffffffu)
    throw IoError(fmt::format(".npy header of {} bytes is longer than format 2.0 allows", len));
  header.append(len - 1 - header.size(), ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += v2 ? '\x02' : '\x01';
  out += '\x00';
  for (int i = 0; i < (v2 ? 4 : 2); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += header;
  out.append(static_cast<const char*>(a.data()), a.byte_size());
  return out;
}

void write_npy(const std::string& path, const Array& a) {
  write_file_atomically(path, serialize_npy(a), ".npy file");
}

}  // namespace hhlo
