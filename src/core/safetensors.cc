// safetensors read and write (hhlo/core/safetensors.h): the header is JSON read with
// nlohmann-json (ordered, so the header order is kept; a parser callback refuses repeated keys),
// every number checked before it is used, then the tensors checked to tile the byte buffer as
// the reference reader's Metadata::validate requires.
#include "hhlo/core/safetensors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>

#include "hhlo/core/file_io.h"

namespace hhlo {
namespace {

using Json = nlohmann::ordered_json;

// The spec's dtypes in its order (safetensors/src/tensor.rs, enum Dtype: "MUST be in increasing
// alignment order"; the writer sorts by it), with hhlo's type where we have one. F8_E4M3 is
// PyTorch's float8_e4m3fn (safetensors' torch mapping), F8_E8M0 its float8_e8m0fnu; F4, F6_E2M3
// and F6_E3M2 are packed (bit size 4 and 6), which no hhlo type is on the host.
struct Kind {
  std::string_view name;
  std::optional<DType> dtype;
};
constexpr Kind kKinds[] = {
    {"BOOL", DType::pred},
    {"F4", std::nullopt},
    {"F6_E2M3", std::nullopt},
    {"F6_E3M2", std::nullopt},
    {"U8", DType::ui8},
    {"I8", DType::i8},
    {"F8_E5M2", DType::f8E5M2},
    {"F8_E4M3", DType::f8E4M3FN},
    {"F8_E8M0", DType::f8E8M0FNU},
    {"F8_E4M3FNUZ", DType::f8E4M3FNUZ},
    {"F8_E5M2FNUZ", DType::f8E5M2FNUZ},
    {"I16", DType::i16},
    {"U16", DType::ui16},
    {"F16", DType::f16},
    {"BF16", DType::bf16},
    {"I32", DType::i32},
    {"U32", DType::ui32},
    {"F32", DType::f32},
    {"C64", DType::c64},
    {"F64", DType::f64},
    {"I64", DType::i64},
    {"U64", DType::ui64},
};
constexpr std::string_view kReadable =
    "BOOL, U8, I8, U16, I16, U32, I32, U64, I64, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, "
    "F8_E5M2FNUZ, F16, BF16, F32, F64, C64";
constexpr std::size_t kLengthBytes = 8;
constexpr int kMaxDepth = 64;  // the header is 3 deep; unknown fields may nest, but not without end

std::size_t kind_index(DType t) {
  for (std::size_t i = 0; i < std::size(kKinds); ++i)
    if (kKinds[i].dtype == t) return i;
  throw Error(fmt::format(
      "safetensors has no dtype for {} (it has {}): convert the array before writing it",
      dtype_name(t), kReadable));
}

/// One tensor of the header, checked alone.
struct Entry {
  std::string name;
  DType dtype;
  Dims shape;
  uint64_t begin = 0, end = 0, bytes = 0;
};

class HeaderReader {
 public:
  explicit HeaderReader(const std::string& what) : what_(what) {}

  IoError bad(std::string_view why) const {
    return IoError(fmt::format("{}: not a valid safetensors file: {}", what_, why));
  }

  /// The header's JSON object, with no key repeated in any object (the spec: "Duplicate keys
  /// are disallowed").
  Json parse(std::string_view text) {
    if (text.empty() || text[0] != '{')
      throw bad("the header does not begin with '{' (the spec requires it)");
    std::vector<std::set<std::string>> keys;  // the keys of each open object
    auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
      if (depth > kMaxDepth)
        throw bad(fmt::format("the header nests deeper than {} levels", kMaxDepth));
      if (event == Json::parse_event_t::object_start) keys.emplace_back();
      if (event == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
      if (event == Json::parse_event_t::key && !keys.empty() &&
          !keys.back().insert(parsed.get<std::string>()).second)
        throw bad(fmt::format("the header repeats the key {} (the spec forbids it)",
                              parsed.dump(-1, ' ', false, Json::error_handler_t::replace)));
      return true;
    };
    try {
      return Json::parse(text.begin(), text.end(), callback);
    } catch (const Json::exception& e) {
      throw bad(fmt::format("the header is not JSON: {}", e.what()));
    }
  }

  /// `__metadata__`: an object of strings (the spec: "Arbitrary JSON is not allowed"), or null.
  std::map<std::string, std::string> metadata(const Json& m) const {
    std::map<std::string, std::string> out;
    if (m.is_null()) return out;
    if (!m.is_object())
      throw bad(
          fmt::format("'__metadata__' is a JSON {}, not an object of strings", m.type_name()));
    for (const auto& [k, v] : m.items()) {
      if (!v.is_string())
        throw bad(
            fmt::format("'__metadata__' entry '{}' is a JSON {}, not a string", k, v.type_name()));
      out.emplace(k, v.get<std::string>());
    }
    return out;
  }

  Entry entry(const std::string& name, const Json& e) const {
    if (!e.is_object())
      throw bad(fmt::format("tensor '{}' is a JSON {}, not an object", name, e.type_name()));
    Entry out{name, DType::f32, {}, 0, 0, 0};
    out.dtype = dtype(name, field(name, e, "dtype"));
    const Json& shape = field(name, e, "shape");
    if (!shape.is_array())
      throw bad(fmt::format("tensor '{}': 'shape' is not an array of integers", name));
    for (const Json& d : shape) out.shape.push_back(dimension(name, d));
    const Json& offsets = field(name, e, "data_offsets");
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
      throw bad(fmt::format(
          "tensor '{}': 'data_offsets' is not two non-negative integers [BEGIN, END]", name));
    out.begin = offsets[0].get<uint64_t>();
    out.end = offsets[1].get<uint64_t>();
    out.bytes = byte_count(out);
    if (out.end < out.begin)
      throw bad(fmt::format("tensor '{}': data_offsets [{}, {}] end before they begin", name,
                            out.begin, out.end));
    if (out.end - out.begin != out.bytes)
      throw bad(
          fmt::format("tensor '{}' of {}[{}] needs {} bytes, its data_offsets [{}, {}] hold {}",
                      name, kKinds[kind_index(out.dtype)].name, fmt::join(out.shape, ","),
                      out.bytes, out.begin, out.end, out.end - out.begin));
    return out;
  }

 private:
  const Json& field(const std::string& name, const Json& e, const char* key) const {
    auto it = e.find(key);
    if (it == e.end()) throw bad(fmt::format("tensor '{}' has no '{}'", name, key));
    return *it;
  }

  DType dtype(const std::string& name, const Json& d) const {
    if (!d.is_string()) throw bad(fmt::format("tensor '{}': 'dtype' is not a string", name));
    std::string s = d.get<std::string>();
    for (const Kind& k : kKinds)
      if (k.name == s) {
        if (!k.dtype)
          throw bad(
              fmt::format("tensor '{}' has dtype {}, which hhlo has no type for (it reads {})",
                          name, s, kReadable));
        return *k.dtype;
      }
    throw bad(fmt::format("tensor '{}' has dtype {}, not one of the spec's", name,
                          d.dump(-1, ' ', false, Json::error_handler_t::replace)));
  }

  int64_t dimension(const std::string& name, const Json& d) const {
    if (!d.is_number_unsigned())
      throw bad(fmt::format("tensor '{}': 'shape' entry {} is not a non-negative integer", name,
                            d.dump(-1, ' ', false, Json::error_handler_t::replace)));
    uint64_t v = d.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw bad(fmt::format("tensor '{}': dimension {} does not fit in 64-bit signed", name, v));
    return static_cast<int64_t>(v);
  }

  uint64_t byte_count(const Entry& e) const {
    uint64_t count = 1, bytes = 0;
    for (int64_t d : e.shape)
      if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count) ||
          count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw bad(fmt::format("tensor '{}': shape [{}] has more elements than 64 bits count",
                              e.name, fmt::join(e.shape, ",")));
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(byte_size(e.dtype)), &bytes))
      throw bad(fmt::format("tensor '{}': shape [{}] needs more bytes than 64 bits count", e.name,
                            fmt::join(e.shape, ",")));
    return bytes;
  }

  const std::string& what_;
};

/// The tensors, ordered by offset, tile [0, buffer) with no gap and no overlap
/// (Metadata::validate, and its check that the buffer ends where the last tensor does).
void check_tiling(std::vector<const Entry*> order, uint64_t buffer, const HeaderReader& r) {
  for (const Entry* e : order)
    if (e->end > buffer)
      throw r.bad(
          fmt::format("tensor '{}': data_offsets [{}, {}] run past the byte buffer's end "
                      "({} bytes)",
                      e->name, e->begin, e->end, buffer));
  std::stable_sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
    return std::pair(a->begin, a->end) < std::pair(b->begin, b->end);
  });
  uint64_t at = 0;
  const Entry* before = nullptr;
  for (const Entry* e : order) {
    if (e->begin < at)
      throw r.bad(fmt::format("tensor '{}' (bytes {} to {}) overlaps tensor '{}' (to byte {})",
                              e->name, e->begin, e->end, before->name, at));
    if (e->begin > at)
      throw r.bad(
          fmt::format("bytes {} to {} of the buffer belong to no tensor (the spec "
                      "forbids holes), before tensor '{}'",
                      at, e->begin, e->name));
    at = e->end;
    before = e;
  }
  if (at != buffer)
    throw r.bad(
        fmt::format("bytes {} to {} of the buffer belong to no tensor (the spec forbids "
                    "holes)",
                    at, buffer));
}

Array to_array(const Entry& e, const std::byte* buffer) {
  Array a(e.dtype, e.shape);
  auto* out = static_cast<std::byte*>(a.data());
  if (a.byte_size() == 0) return a;
  std::memcpy(out, buffer + e.begin, a.byte_size());
  if constexpr (std::endian::native == std::endian::big) {  // the spec's data is little-endian
    std::size_t unit = is_complex(e.dtype) ? byte_size(e.dtype) / 2 : byte_size(e.dtype);
    for (std::size_t at = 0; at + unit <= a.byte_size(); at += unit)
      std::reverse(out + at, out + at + unit);
  }
  if (e.dtype == DType::pred)  // as NumPy reads a bool: any nonzero byte is true
    for (std::size_t i = 0; i < a.byte_size(); ++i) out[i] = std::byte{out[i] != std::byte{0}};
  return a;
}

}  // namespace

Safetensors parse_safetensors(std::span<const std::byte> bytes, const std::string& what) {
  HeaderReader r(what);
  if (bytes.size() < kLengthBytes)
    throw r.bad(fmt::format("{} bytes, fewer than the 8-byte header length", bytes.size()));
  uint64_t n = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    n |= static_cast<uint64_t>(std::to_integer<uint8_t>(bytes[i])) << (8 * i);
  if (n > kSafetensorsMaxHeader)
    throw r.bad(fmt::format("header length {} is over the spec's limit of {} bytes", n,
                            kSafetensorsMaxHeader));
  if (n > bytes.size() - kLengthBytes)
    throw r.bad(fmt::format("header length {} runs past the end of the file ({} bytes after it)", n,
                            bytes.size() - kLengthBytes));
  std::string_view text(reinterpret_cast<const char*>(bytes.data()) + kLengthBytes, n);
  Json header = r.parse(text);
  if (!header.is_object()) throw r.bad("the header is not a JSON object");
  Safetensors out;
  std::vector<Entry> entries;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__")
      out.metadata = r.metadata(value);
    else
      entries.push_back(r.entry(name, value));
  }
  std::vector<const Entry*> order;
  for (const Entry& e : entries) order.push_back(&e);
  const std::byte* buffer = bytes.data() + kLengthBytes + n;
  check_tiling(order, bytes.size() - kLengthBytes - n, r);
  for (const Entry& e : entries) out.tensors.emplace_back(e.name, to_array(e, buffer));
  return out;
}

Safetensors read_safetensors(const std::string& path) {
  std::string content = read_file(path, "safetensors file");
  return parse_safetensors(std::as_bytes(std::span(content.data(), content.size())), path);
}

std::string serialize_safetensors(const std::vector<std::pair<std::string, Array>>& tensors,
                                  const std::map<std::string, std::string>& metadata) {
  std::vector<std::size_t> order(tensors.size());
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    order[i] = i;
    const std::string& name = tensors[i].first;
    if (name == "__metadata__")
      throw Error("write_safetensors: a tensor named '__metadata__' (the spec reserves the key)");
    if (!seen.insert(name).second)
      throw Error(fmt::format("write_safetensors: two tensors named '{}'", name));
    kind_index(tensors[i].second.dtype());  // throws for c128
  }
  // safetensors' `prepare`: by dtype, the widest alignment first, then by name.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    std::size_t ka = kind_index(tensors[a].second.dtype());
    std::size_t kb = kind_index(tensors[b].second.dtype());
    return ka != kb ? ka > kb : tensors[a].first < tensors[b].first;
  });
  Json header = Json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (std::size_t i : order) {
    const Array& a = tensors[i].second;
    header[tensors[i].first] = {{"dtype", kKinds[kind_index(a.dtype())].name},
                                {"shape", a.dims()},
                                {"data_offsets", {offset, offset + a.byte_size()}}};
    offset += a.byte_size();
  }
  std::string text;
  try {
    text = header.dump(-1, ' ', false, Json::error_handler_t::strict);
  } catch (const Json::exception& e) {
    throw Error(
        fmt::format("write_safetensors: a name or metadata string is not UTF-8: {}", e.what()));
  }
  text.append((kLengthBytes - text.size() % kLengthBytes) % kLengthBytes, ' ');
  if (text.size() > kSafetensorsMaxHeader)
    throw Error(
        fmt::format("write_safetensors: the header would be {} bytes, over the spec's "
                    "limit of {}",
                    text.size(), kSafetensorsMaxHeader));
  std::string out;
  out.reserve(kLengthBytes + text.size() + offset);
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    out += static_cast<char>((static_cast<uint64_t>(text.size()) >> (8 * i)) & 0xff);
  out += text;
  for (std::size_t i : order) {
    const Array& a = tensors[i].second;
    std::size_t at = out.size();
    out.append(static_cast<const char*>(a.data()), a.byte_size());
    if constexpr (std::endian::native == std::endian::big) {
      std::size_t unit = is_complex(a.dtype()) ? byte_size(a.dtype()) / 2 : byte_size(a.dtype());
      for (std::size_t k = at; k + unit <= out.size(); k += unit)
        std::reverse(out.begin() + static_cast<std::ptrdiff_t>(k),
                     out.begin() + static_cast<std::ptrdiff_t>(k + unit));
    }
  }
  return out;
}

void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, Array>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  write_file_atomically(path, serialize_safetensors(tensors, metadata), "safetensors file");
}

}  // namespace hhlo
