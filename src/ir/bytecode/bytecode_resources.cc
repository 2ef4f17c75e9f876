// MLIR bytecode: the resource and resource-offset sections, and DenseResourceElementsAttr
// (`dense_resource<KEY> : tensor<...>`, what torch-mlir writes for every weight) read from them
// (MLIR's "MLIR Bytecode Format" document, "Resource Section"; BytecodeReader.cpp's
// ResourceSectionReader; BuiltinDialectBytecode.td's DenseResourceElementsAttr).
//
// The resource-offset section lists, per group, each resource's key (a string index), the size of
// its data in the resource section (the data follow one another there, in this order) and its
// kind (a byte: 0 blob, 1 bool, 2 string). External resource groups (a string key each) come
// first, then dialect groups (a dialect index each) until the section ends. A builtin blob's data
// are its alignment (varint), its size (varint), 0xCB padding up to that alignment (counted, as
// the writer does, from the start of the bytecode), then the bytes. A DenseResourceElementsAttr
// holds a handle: the index of a dialect resource in declaration order, over every dialect.
//
// The attribute is read as the text parser reads `dense_resource<KEY>` with the text's
// `dialect_resources` section (src/ir/attrs/dense_resource.cc): a plain tensor of the blob's
// bytes, one byte per boolean as MLIR's blobs store them.
#include <fmt/format.h>

#include <bit>

#include "bytecode_internal.h"

namespace hhlo::bc {
namespace {

constexpr uint8_t kBlob = 0, kBool = 1, kString = 2;

/// The data of builtin blob resource `key`: alignment, size, padding, bytes, nothing after.
std::span<const uint8_t> read_blob(Cursor& d, std::string_view key) {
  size_t at = d.offset();
  uint64_t align = d.varint();
  if (align == 0 || !std::has_single_bit(align) || align > (uint64_t{1} << 32))
    d.fail_at(at, fmt::format("a power-of-two alignment of resource '{}'", key),
              fmt::format("{}", align));
  uint64_t size = d.varint();
  while (d.offset() % align != 0) {
    size_t pad_at = d.offset();
    if (d.byte() != 0xCB) d.fail_at(pad_at, "an alignment byte 0xCB", "another byte");
  }
  if (size > d.remaining())
    d.fail(fmt::format("the {} bytes of resource '{}'", size, key),
           fmt::format("{} left in its entry", d.remaining()));
  std::span<const uint8_t> b = d.bytes(static_cast<size_t>(size));
  if (!d.empty()) d.fail(fmt::format("the end of resource '{}'", key), "trailing bytes");
  return b;
}

}  // namespace

void Reader::read_resource_group(Cursor& offsets, Cursor& data, std::optional<uint32_t> dialect) {
  uint64_t n = offsets.varint();
  if (n > offsets.remaining())
    offsets.fail(fmt::format("{} resources", n), "a shorter resource offset section");
  bool builtin = dialect && dialect_name(*dialect) == "builtin";
  for (uint64_t i = 0; i < n; ++i) {
    Resource r;
    r.key = string(offsets);
    uint64_t size = offsets.varint();
    size_t kind_at = offsets.offset();
    r.kind = offsets.byte();
    if (r.kind > kString)
      offsets.fail_at(kind_at,
                      fmt::format("the kind of resource '{}' (0 blob, 1 bool, 2 string)", r.key),
                      fmt::format("{}", r.kind));
    if (size > data.remaining())
      data.fail(fmt::format("the {} bytes of resource '{}'", size, r.key),
                fmt::format("{} left in the section", data.remaining()));
    r.offset = data.offset();
    Cursor entry = data.sub(static_cast<size_t>(size), "resource");
    if (!dialect) continue;  // an external resource: not ours to read
    r.dialect = *dialect;
    r.declared_only = entry.empty();
    if (builtin && r.kind == kBlob && !r.declared_only) r.blob = read_blob(entry, r.key);
    resources_.push_back(r);  // another dialect's or kind's value is not read, only counted
  }
}

void Reader::read_resources(std::optional<Cursor> data, std::optional<Cursor> offsets) {
  if (!offsets && !data) return;
  if (!offsets || !data) {
    const Cursor& c = offsets ? *offsets : *data;
    c.fail("both a resource and a resource offset section",
           fmt::format("only the {} section", c.section()));
  }
  Cursor c = *offsets, d = *data;
  uint64_t external = c.varint();
  if (external > c.remaining())
    c.fail(fmt::format("{} external resource groups", external), "a shorter section");
  for (uint64_t i = 0; i < external; ++i) {
    string(c);  // the group's key
    read_resource_group(c, d, std::nullopt);
  }
  while (!c.empty()) {
    uint32_t dialect = static_cast<uint32_t>(c.index(dialects_.size(), "a dialect index"));
    read_resource_group(c, d, dialect);
  }
  if (!d.empty()) d.fail("the end of the resource section", "bytes no resource claims");
}

BcAttr Reader::read_dense_resource(Cursor& c) {
  size_t at = c.offset();
  const BcType& t = type(c);
  uint64_t handle = c.index(resources_.size(), "a resource handle (a dialect resource's index)");
  const Resource& r = resources_[handle];
  std::string what = fmt::format("dense_resource<{}> : {}", r.key, type_text(t));
  if (t.kind != BcType::Kind::tensor)
    c.fail_at(at, "a dense_resource of a tensor type", type_text(t));
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d == kDynamic) c.fail_at(at, "a dense_resource of a static shape", type_text(t));
    n *= d;  // at most 2^56 elements (ranked_tensor's bound)
  }
  if (dialect_name(r.dialect) != "builtin" || r.kind != kBlob || r.declared_only)
    Cursor(this, "resource", bytes_.data() + r.offset, bytes_.data() + r.offset)
        .fail_at(r.offset, fmt::format("the builtin blob of {}", what),
                 r.declared_only ? std::string("a resource declared without data")
                 : r.kind != kBlob
                     ? fmt::format("a {} resource", r.kind == kBool ? "bool" : "string")
                     : fmt::format("a resource of dialect '{}'", dialect_name(r.dialect)));
  uint64_t want = static_cast<uint64_t>(n) * byte_size(t.dtype);
  if (r.blob.size() != want)
    Cursor(this, "resource", r.blob.data(), r.blob.data() + r.blob.size())
        .fail_at(r.offset, fmt::format("a blob of {} bytes for {}", want, what),
                 fmt::format("{} bytes", r.blob.size()));
  BcAttr a = make_attr(BcAttr::Kind::tensor);
  a.type = &t;
  a.data.assign(r.blob.begin(), r.blob.end());
  if (t.dtype == DType::pred)  // one byte per element in MLIR's blobs; any non-zero is true
    for (uint8_t& b : a.data) b = b != 0;
  return a;
}

}  // namespace hhlo::bc
