// MLIR's dense resources, read: `dense_resource<KEY> : tensor<...>` (DenseResourceElementsAttr,
// what torch-mlir prints for every weight) with its data in the file metadata that ends the text,
// `{-# dialect_resources: { builtin: { KEY: "0x<alignment, 4 bytes LE><data>" } } #-}` (MLIR's
// AsmPrinter/Parser, "Resources" of the builtin dialect: a hex blob whose first four bytes are
// its alignment). The attribute reads as a DenseAttr whose array is filled once the blobs are
// read, so the IR, the printer and the plugin see a plain `dense<...>`; nothing of the resource
// form is kept.
#include <fmt/format.h>

#include <cstring>

#include "../text/parser_internal.h"

namespace hhlo::parse {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The bytes of the blob string token `t` ("0x" then hex digits), the 4-byte alignment dropped;
/// nullopt when it is not such a string.
std::optional<std::string> blob_bytes(std::string_view t) {
  if (t.size() < 4 || !t.starts_with("\"0x") || !t.ends_with('"')) return std::nullopt;
  std::string_view h = t.substr(3, t.size() - 4);
  if (h.size() % 2 || h.size() < 8) return std::nullopt;
  std::string out(h.size() / 2 - 4, '\0');
  for (size_t i = 8; i < h.size(); i += 2) {
    int hi = hex_digit(h[i]), lo = hex_digit(h[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i / 2 - 4] = static_cast<char>(hi * 16 + lo);
  }
  return out;
}

/// A resource key: a bare identifier (`torch_tensor_3_torch.float32`) or a string.
std::string read_key(Parser& p, std::string_view what) {
  if (p.is(Tok::bare_id)) {
    std::string k(p.tok().text);
    p.advance();
    return k;
  }
  if (p.is(Tok::string)) {
    bool ok = true;
    std::string k = unescape(p.tok().text, ok);
    if (!ok) p.fail("a valid string key");
    p.advance();
    return k;
  }
  p.fail(what);
}

/// `{ KEY: VALUE, ... }` of one dialect's resources: builtin's blobs kept in `blobs`, another
/// dialect's values (strings, booleans) skipped.
void read_dialect_resources(Parser& p, bool builtin,
                            std::unordered_map<std::string, std::string>& blobs) {
  p.expect(Tok::lbrace, "'{' opening a dialect's resources");
  while (!p.consume(Tok::rbrace)) {
    size_t pos = p.tok().pos;
    std::string key = read_key(p, "a resource key");
    p.expect(Tok::colon, "':' after the resource key");
    if (builtin) {
      if (!p.is(Tok::string)) p.fail("a hex blob \"0x...\" (builtin resources are blobs)");
      std::optional<std::string> bytes = blob_bytes(p.tok().text);
      if (!bytes) p.fail("a hex blob \"0x\" + 4 bytes of alignment + the data, in hex digits");
      if (!blobs.emplace(key, std::move(*bytes)).second)
        p.fail_at(pos, "each resource key once", "'" + key + "' again");
    } else if (!p.is(Tok::string) && !p.is(Tok::bare_id)) {
      p.fail("a resource value (a string or a boolean)");
    }
    p.advance();
    if (!p.consume(Tok::comma) && !p.is(Tok::rbrace)) p.fail("',' or '}' after a resource");
  }
}

}  // namespace

Attribute Parser::parse_dense_resource() {
  size_t start = tok_.pos;
  advance();  // dense_resource
  expect(Tok::less, "'<' after dense_resource");
  std::string key = read_key(*this, "a resource key in dense_resource<...>");
  expect(Tok::greater, "'>' closing dense_resource<...>");
  expect(Tok::colon, "':' and the type of the dense_resource");
  TensorType type = parse_tensor_type();
  if (!type.is_static()) fail_at(start, "a dense_resource of a static shape", type.to_string());
  auto array = std::make_shared<Array>(type);
  pending_resources_.push_back({std::move(key), array, start});
  return DenseAttr{std::move(array)};
}

void Parser::parse_file_metadata() {
  advance();  // {-#
  while (!consume(Tok::metadata_close)) {
    std::string_view section = tok_.text;
    if (!is(Tok::bare_id)) fail("'dialect_resources', 'external_resources' or '#-}'");
    advance();
    expect(Tok::colon, "':' after the file metadata section's name");
    if (section == "dialect_resources") {
      expect(Tok::lbrace, "'{' opening the dialect resources");
      while (!consume(Tok::rbrace)) {
        std::string dialect = read_key(*this, "a dialect name");
        expect(Tok::colon, "':' after the dialect name");
        read_dialect_resources(*this, dialect == "builtin", resource_blobs_);
        if (!consume(Tok::comma) && !is(Tok::rbrace)) fail("',' or '}' after a dialect");
      }
    } else if (section == "external_resources") {
      if (!is(Tok::lbrace)) fail("'{' opening the external resources");
      reset_to(scan_balanced(tok_.pos));
    } else {
      fail("'dialect_resources' or 'external_resources' (the file metadata sections)");
    }
    if (!consume(Tok::comma) && !is(Tok::metadata_close)) fail("',' or '#-}' after a section");
  }
}

void Parser::resolve_resources() {
  for (PendingResource& r : pending_resources_) {
    auto it = resource_blobs_.find(r.key);
    if (it == resource_blobs_.end())
      fail_at(r.pos,
              fmt::format("the blob of dense_resource<{}> in the text's {{-# dialect_resources: "
                          "{{builtin: ...}} #-}} section",
                          r.key),
              r.key == "__elided__" ? "'__elided__' (a text printed with its resources elided)"
                                    : "no such blob");
    const std::string& bytes = it->second;
    if (bytes.size() != r.array->byte_size())
      fail_at(r.pos,
              fmt::format("a blob of {} bytes for dense_resource<{}> : {}", r.array->byte_size(),
                          r.key, r.array->type().to_string()),
              fmt::format("{} bytes", bytes.size()));
    std::memcpy(r.array->data(), bytes.data(), bytes.size());
    if (r.array->dtype() == DType::pred)  // MLIR's bool blobs hold one byte per element
      for (size_t i = 0; i < bytes.size(); ++i)
        static_cast<uint8_t*>(r.array->data())[i] = bytes[i] != 0;
  }
  pending_resources_.clear();
}

}  // namespace hhlo::parse
