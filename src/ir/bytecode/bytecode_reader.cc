// MLIR bytecode: the cursor (varints, strings, nested sections), the attribute/type table (each
// entry to its dialect's reader), the top-level section structure, and the string, dialect,
// attribute/type-offset and properties sections (MLIR's "MLIR Bytecode Format"
// document; mlir/lib/Bytecode/Reader/BytecodeReader.cpp).
#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "../stablehlo_names.h"
#include "bytecode_internal.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/verifier.h"

namespace hhlo::bc {
namespace {

constexpr uint8_t kString = 0, kDialect = 1, kAttrType = 2, kAttrTypeOffset = 3, kIR = 4,
                  kResource = 5, kResourceOffset = 6, kDialectVersions = 7, kProperties = 8;
constexpr uint64_t kMaxVersion = 6;  // the newest bytecode version read here (what JAX 0.10 writes)
constexpr uint64_t kElideUnknownBlockArgLocation = 4, kNativePropertiesEncoding = 5;

}  // namespace

std::string_view section_name(uint8_t id) {
  static constexpr std::string_view names[] = {
      "string",    "dialect",  "attribute/type",  "attribute/type offset",
      "IR",        "resource", "resource offset", "dialect versions",
      "properties"};
  return id < 9 ? names[id] : "unknown";
}

// ---------------------------------------------------------------- cursor

Cursor::Cursor(const Reader* r, std::string_view section, const uint8_t* begin, const uint8_t* end)
    : r_(r), section_(section), p_(begin), end_(end) {}

size_t Cursor::offset() const { return r_->offset_of(p_); }

void Cursor::fail(std::string expected, std::string found) const {
  fail_at(offset(), std::move(expected), std::move(found));
}

void Cursor::fail_at(size_t offset, std::string expected, std::string found) const {
  throw ParseError(fmt::format("{} (bytecode {} section)", r_->options().source_name, section_), 0,
                   static_cast<uint32_t>(std::min<size_t>(offset, UINT32_MAX)), std::move(expected),
                   std::move(found));
}

uint8_t Cursor::byte() {
  if (p_ == end_) fail("one more byte", "the end of the section");
  return *p_++;
}

std::span<const uint8_t> Cursor::bytes(size_t n) {
  if (n > remaining())
    fail(fmt::format("{} more byte(s)", n), fmt::format("{} left in the section", remaining()));
  std::span<const uint8_t> s(p_, n);
  p_ += n;
  return s;
}

uint64_t Cursor::varint() {
  uint8_t first = byte();
  if (first & 1) return first >> 1;
  if (first == 0) {
    std::span<const uint8_t> b = bytes(8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | b[static_cast<size_t>(i)];
    return v;
  }
  int extra = std::countr_zero(first);  // 1..7 further bytes
  std::span<const uint8_t> b = bytes(static_cast<size_t>(extra));
  uint64_t v = first;
  for (int i = 0; i < extra; ++i)
    v |= static_cast<uint64_t>(b[static_cast<size_t>(i)]) << (8 * (i + 1));
  return v >> (extra + 1);
}

int64_t Cursor::svarint() {
  uint64_t v = varint();
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

uint64_t Cursor::varint_flag(bool& flag) {
  uint64_t v = varint();
  flag = v & 1;
  return v >> 1;
}

uint64_t Cursor::index(uint64_t limit, std::string_view what) {
  size_t at = offset();
  uint64_t v = varint();
  if (v >= limit) fail_at(at, fmt::format("{} below {}", what, limit), fmt::format("{}", v));
  return v;
}

std::string_view Cursor::cstring() {
  const void* nul = std::memchr(p_, 0, remaining());
  if (!nul) fail("a NUL-terminated string", "the end of the section");
  std::string_view s(reinterpret_cast<const char*>(p_),
                     static_cast<size_t>(static_cast<const uint8_t*>(nul) - p_));
  p_ = static_cast<const uint8_t*>(nul) + 1;
  return s;
}

Cursor Cursor::sub(size_t n, std::string_view section) {
  std::span<const uint8_t> b = bytes(n);
  return Cursor(r_, section, b.data(), b.data() + b.size());
}

Cursor Cursor::section_at(uint8_t& id) {
  size_t at = offset();
  uint8_t id_and_align = byte();
  id = id_and_align & 0x7f;
  if (id > kProperties) fail_at(at, "a section id from 0 to 8", fmt::format("{}", id));
  uint64_t length = varint();
  if (id_and_align & 0x80) {
    uint64_t align = varint();
    if (align == 0 || !std::has_single_bit(align) || align > 4096)
      fail_at(at, "a section alignment that is a power of two up to 4096",
              fmt::format("{}", align));
    // Padding bytes 0xCB up to the alignment, counted from the start of the bytecode (the
    // writer aligns relative to its buffer).
    while (offset() % align != 0) {
      size_t pad_at = offset();
      if (byte() != 0xCB) fail_at(pad_at, "an alignment byte 0xCB", "another byte");
    }
  }
  if (length > remaining())
    fail_at(at, fmt::format("a {} section of {} bytes within the data", section_name(id), length),
            fmt::format("{} bytes left", remaining()));
  return sub(static_cast<size_t>(length), section_name(id));
}

Depth::Depth(int& depth, const Cursor& c) : d(depth) {
  if (++d > kMaxDepth) {
    --d;
    c.fail(fmt::format("nesting of at most {} levels", kMaxDepth), "deeper nesting");
  }
}

// ---------------------------------------------------------------- the attribute/type table

// Each entry is read on first use and kept: by its dialect's encoding when written with one
// (`custom`), else from its MLIR text.

const BcType& Reader::type(uint64_t i, const Cursor& c) {
  if (i >= type_entries_.size())
    c.fail(fmt::format("a type index below {}", type_entries_.size()), fmt::format("{}", i));
  if (types_[i]) return *types_[i];
  if (busy_types_[i]) c.fail("a type that does not contain itself", fmt::format("type {}", i));
  Depth guard(depth_, c);
  busy_types_[i] = 1;
  const Entry& e = type_entries_[i];
  Cursor ec(this, "attribute/type", e.begin, e.end);
  BcType t = read_type(e, ec);
  t.offset = offset_of(e.begin);
  if (!ec.empty()) ec.fail("the end of the type entry", "trailing bytes");
  busy_types_[i] = 0;
  types_[i] = std::make_unique<BcType>(std::move(t));
  return *types_[i];
}

BcType Reader::read_type(const Entry& e, Cursor& c) {
  const std::string& d = dialects_[e.dialect];
  if (!e.custom) {  // the type's assembly text
    std::string_view text = c.cstring();
    if (text.starts_with("tensor<")) {
      try {
        TensorType tt = parse_type(text);
        BcType t;
        t.kind = BcType::Kind::tensor;
        t.dtype = tt.dtype;
        t.dims = tt.dims;
        return t;
      } catch (const ParseError&) {  // a tensor type our parser does not read (an encoding, a
                                     // bound): kept as opaque text below, as any other type is
      }
    }
    if (text == mlir_name(DType::token)) return element_type(DType::token);
    return other_type(std::string(text));
  }
  if (d == "vhlo") return read_vhlo_type(c);
  if (d == "builtin") return read_builtin_type(c);
  if (d == "stablehlo") return read_stablehlo_type(c);
  return other_type(fmt::format("a type of dialect '{}'", d));
}

const BcAttr& Reader::attr(uint64_t i, const Cursor& c) {
  if (i >= attr_entries_.size())
    c.fail(fmt::format("an attribute index below {}", attr_entries_.size()), fmt::format("{}", i));
  if (attrs_[i]) return *attrs_[i];
  if (busy_attrs_[i])
    c.fail("an attribute that does not contain itself", fmt::format("attribute {}", i));
  Depth guard(depth_, c);
  busy_attrs_[i] = 1;
  const Entry& e = attr_entries_[i];
  Cursor ec(this, "attribute/type", e.begin, e.end);
  BcAttr a = read_attr(e, ec);
  a.offset = offset_of(e.begin);
  if (!ec.empty()) ec.fail("the end of the attribute entry", "trailing bytes");
  busy_attrs_[i] = 0;
  attrs_[i] = std::make_unique<BcAttr>(std::move(a));
  return *attrs_[i];
}

BcAttr Reader::read_attr(const Entry& e, Cursor& c) {
  const std::string& d = dialects_[e.dialect];
  if (!e.custom) {
    std::string_view text = c.cstring();
    // An attribute of a dialect without an encoding of its own (`#chlo<precision HIGH>`, mhlo's)
    // is its text, read as the text parser reads it. VHLO writes every one of its own encoded: an
    // unencoded one names itself where it is used.
    if (d != "vhlo") return read_text_attr(text, c);
    BcAttr a = make_attr(BcAttr::Kind::other);
    a.what = std::string(text);
    return a;
  }
  if (d == "vhlo") return read_vhlo_attr(c);
  if (d == "builtin") return read_builtin_attr(c);
  if (d == "sdy") return read_sdy_attr(c);
  if (d == "stablehlo") return read_stablehlo_attr(c);
  if (d == "chlo") return read_chlo_attr(c);
  BcAttr a = make_attr(BcAttr::Kind::other);
  a.what = fmt::format("an attribute of dialect '{}' (its bytecode encoding is not read)", d);
  c.bytes(c.remaining());
  return a;
}

// ---------------------------------------------------------------- sections

Reader::Reader(std::span<const uint8_t> bytes, const BytecodeOptions& options)
    : bytes_(bytes), opts_(options) {}

std::string_view Reader::string_at(uint64_t i, const Cursor& c) const {
  if (i >= strings_.size())
    c.fail(fmt::format("a string index below {}", strings_.size()), fmt::format("{}", i));
  return strings_[i];
}

const OpName& Reader::op_name(Cursor& c) const {
  return op_names_[c.index(op_names_.size(), "an operation name index")];
}

void Reader::read_sections() {
  Cursor c(this, "header", bytes_.data(), bytes_.data() + bytes_.size());
  if (bytes_.size() < 4 || std::memcmp(bytes_.data(), "ML\xefR", 4) != 0)
    c.fail("MLIR bytecode (the magic number ML\\xefR)",
           bytes_.size() < 4 ? "fewer than 4 bytes" : "other bytes");
  c.bytes(4);
  size_t at = c.offset();
  version_ = c.varint();
  if (version_ > kMaxVersion)
    c.fail_at(at, fmt::format("a bytecode version from 0 to {}", kMaxVersion),
              fmt::format("version {}", version_));
  producer_ = std::string(c.cstring());
  while (!c.empty()) {
    size_t sec_at = c.offset();
    uint8_t id = 0;
    Cursor s = c.section_at(id);
    if (sections_[id])
      c.fail_at(sec_at, "each section once", fmt::format("a second {} section", section_name(id)));
    sections_[id] = s;
  }
  for (uint8_t id : {kString, kDialect, kAttrType, kAttrTypeOffset, kIR})
    if (!sections_[id])
      c.fail(fmt::format("a {} section", section_name(id)), "the end of the bytecode");
  if (version_ >= kNativePropertiesEncoding && !sections_[kProperties])
    c.fail("a properties section (bytecode version 5 and later)", "the end of the bytecode");
}

void Reader::read_strings(Cursor c) {
  uint64_t n = c.varint();
  if (n > c.remaining()) c.fail(fmt::format("{} string lengths", n), "a shorter section");
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  for (size_t i = 0; i < n; ++i) lengths[n - 1 - i] = c.varint();
  std::span<const uint8_t> data = c.bytes(c.remaining());
  size_t pos = 0;
  strings_.resize(static_cast<size_t>(n));
  for (size_t i = 0; i < n; ++i) {
    if (lengths[i] == 0 || lengths[i] > data.size() - pos)
      c.fail_at(offset_of(data.data() + pos), "string lengths that fit the string data",
                fmt::format("a string of {} bytes", lengths[i]));
    size_t len = static_cast<size_t>(lengths[i]);
    if (data[pos + len - 1] != 0)
      c.fail_at(offset_of(data.data() + pos + len - 1), "a NUL ending the string", "another byte");
    strings_[i] = std::string_view(reinterpret_cast<const char*>(data.data() + pos), len - 1);
    pos += len;
  }
  if (pos != data.size())
    c.fail_at(offset_of(data.data() + pos), "the end of the string data", "trailing bytes");
}

void Reader::read_dialects(Cursor c) {
  uint64_t n = c.varint();
  if (n > c.remaining()) c.fail(fmt::format("{} dialects", n), "a shorter section");
  for (uint64_t i = 0; i < n; ++i) {
    bool versioned = false;
    size_t at = c.offset();
    // Before version 1 (kDialectVersioning) a dialect is its name's index alone.
    uint64_t name = version_ >= 1 ? c.varint_flag(versioned) : c.varint();
    dialects_.emplace_back(string_at(name, c));
    if (versioned) {
      uint8_t id = 0;
      c.section_at(id);  // the dialect's version (VHLO and JAX's writers write none)
      if (id != kDialectVersions)
        c.fail_at(at, "a dialect version section", fmt::format("a {} section", section_name(id)));
    }
  }
  if (version_ >= kElideUnknownBlockArgLocation) c.varint();  // the number of op names
  while (!c.empty()) {
    uint32_t d = static_cast<uint32_t>(c.index(dialects_.size(), "a dialect index"));
    uint64_t count = c.varint();
    if (count > c.remaining()) c.fail(fmt::format("{} op names", count), "a shorter section");
    for (uint64_t k = 0; k < count; ++k) {
      OpName op;
      op.dialect = d;
      if (version_ >= kNativePropertiesEncoding) {
        uint64_t s = c.varint_flag(op.registered);
        op.name = string_at(s, c);
      } else {
        op.name = string(c);
      }
      op_names_.push_back(op);
    }
  }
}

void Reader::read_attr_type_offsets(Cursor c, std::span<const uint8_t> data) {
  uint64_t n_attrs = c.varint(), n_types = c.varint();
  if (n_attrs > c.remaining() || n_types > c.remaining())
    c.fail("attribute and type counts that fit the offset section", "larger counts");
  size_t pos = 0;
  auto entries = [&](std::vector<Entry>& out, uint64_t count) {
    while (out.size() < count) {
      uint32_t d = static_cast<uint32_t>(c.index(dialects_.size(), "a dialect index"));
      uint64_t k = c.varint();
      if (k > count - out.size())
        c.fail(fmt::format("at most {} entries", count - out.size()), fmt::format("{}", k));
      for (uint64_t j = 0; j < k; ++j) {
        Entry e;
        e.dialect = d;
        size_t at = c.offset();
        uint64_t size = c.varint_flag(e.custom);
        if (size > data.size() - pos)
          c.fail_at(at, "an entry within the attribute/type section",
                    fmt::format("{} bytes at offset {} of {}", size, pos, data.size()));
        e.begin = data.data() + pos;
        e.end = e.begin + size;
        pos += static_cast<size_t>(size);
        out.push_back(e);
      }
    }
  };
  entries(attr_entries_, n_attrs);
  entries(type_entries_, n_types);
  if (!c.empty()) c.fail("the end of the attribute/type offset section", "trailing bytes");
  attrs_.resize(attr_entries_.size());
  types_.resize(type_entries_.size());
  busy_attrs_.assign(attr_entries_.size(), 0);
  busy_types_.assign(type_entries_.size(), 0);
}

void Reader::read_properties(Cursor c) {
  if (c.empty()) return;
  uint64_t count = c.varint();
  if (count > c.remaining()) c.fail(fmt::format("{} properties", count), "a shorter section");
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t* begin = nullptr;
    uint64_t size = c.varint();
    std::span<const uint8_t> b = c.bytes(static_cast<size_t>(std::min<uint64_t>(size, SIZE_MAX)));
    begin = b.data();
    props_.emplace_back(begin, begin + b.size());
  }
  if (!c.empty()) c.fail("the end of the properties section", "trailing bytes");
}

Cursor Reader::properties(uint64_t i, const Cursor& c) const {
  if (i >= props_.size())
    c.fail(fmt::format("a properties index below {}", props_.size()), fmt::format("{}", i));
  return Cursor(this, "properties", props_[i].first, props_[i].second);
}

Module Reader::run() {
  read_sections();
  read_strings(*sections_[kString]);
  if (sections_[kProperties]) read_properties(*sections_[kProperties]);
  read_dialects(*sections_[kDialect]);
  read_resources(sections_[kResource], sections_[kResourceOffset]);
  Cursor at = *sections_[kAttrType];
  std::span<const uint8_t> data = at.bytes(at.remaining());
  read_attr_type_offsets(*sections_[kAttrTypeOffset], data);
  return read_ir(*sections_[kIR]);
}

}  // namespace hhlo::bc

namespace hhlo {

bool is_bytecode(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "ML\xefR", 4) == 0;
}

Module read_bytecode(std::span<const std::uint8_t> bytes, const BytecodeOptions& options) {
  Module m = bc::Reader(bytes, options).run();
  if (options.verify)
    verify(m, VerifyOptions{.allow_unknown_ops = true, .skip_dynamic = true});
  else  // as parse_module: a call cycle is refused even unverified (the plugin recursed on one)
    detail::check_no_call_cycle(m, nullptr);
  return m;
}

Module read_bytecode(std::string_view bytes, const BytecodeOptions& options) {
  return read_bytecode(std::span<const std::uint8_t>(
                           reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()),
                       options);
}

}  // namespace hhlo
