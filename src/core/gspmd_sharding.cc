// GSPMD sharding text, layouts and conversions (hhlo/core/gspmd_sharding.h).
#include "hhlo/core/gspmd_sharding.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>

namespace hhlo {
namespace {

std::string join(const std::vector<int64_t>& v, std::string_view sep = ",") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += std::to_string(v[i]);
  }
  return out;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t x : v) n *= x;
  return n;
}

/// A recursive-descent reader over the sharding text; errors name the 1-based column.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  GspmdSharding sharding(int depth = 0) {
    if (depth > 8) fail("a sharding nested at most 8 deep");
    skip();
    expect('{', "'{' opening a sharding");
    skip();
    GspmdSharding s;
    if (peek() == '{') {  // a tuple
      s.kind = GspmdSharding::Kind::tuple;
      do s.elements.push_back(sharding(depth + 1));
      while (take(','));
      skip();
      expect('}', "'}' closing the tuple sharding");
      return s;
    }
    size_t at = pos_;
    std::string word = identifier();
    if (word == "replicated") {
      s.kind = GspmdSharding::Kind::replicated;
    } else if (word == "manual") {
      s.kind = GspmdSharding::Kind::manual;
    } else if (word == "unknown") {
      s.kind = GspmdSharding::Kind::unknown;
    } else if (word == "unreduced") {
      s.kind = GspmdSharding::Kind::unreduced;
    } else if (word == "maximal") {
      s.kind = GspmdSharding::Kind::maximal;
      skip();
      if (identifier() != "device") fail("'device=' after 'maximal'");
      expect('=', "'=' after 'device'");
      skip();
      size_t num = pos_;
      s.device = integer();
      if (s.device < 0) fail("a device id >= 0", num);
    } else if (word == "devices") {
      s.kind = GspmdSharding::Kind::tiled;
      tiled(s);
    } else {
      pos_ = at;
      fail("replicated, manual, unknown, unreduced, maximal or devices=");
    }
    suffixes(s);
    skip();
    expect('}', "'}' closing the sharding");
    return s;
  }

  void end() {
    skip();
    if (pos_ != text_.size()) fail("the end of the sharding");
  }

 private:
  [[noreturn]] void fail(std::string_view expected, std::optional<size_t> at = {}) const {
    size_t p = at.value_or(pos_);
    std::string found =
        p >= text_.size() ? "the end of the text" : fmt::format("'{}'", text_.substr(p, 12));
    throw ParseError("mhlo.sharding", 1, static_cast<uint32_t>(p + 1), std::string(expected),
                     found);
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool take(char c) {
    skip();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c, std::string_view what) {
    if (!take(c)) fail(what);
  }
  std::string identifier() {
    skip();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  int64_t integer() {
    skip();
    size_t start = pos_;
    bool neg = take('-');
    int64_t v = 0;
    size_t digits = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (v > (int64_t{1} << 50)) fail("an integer below 2^50", start);
      v = v * 10 + (text_[pos_] - '0');
      ++pos_;
    }
    if (pos_ == digits) {
      pos_ = start;
      fail("an integer");
    }
    return neg ? -v : v;
  }
  std::vector<int64_t> bracketed(char open, char close, std::string_view what) {
    expect(open, what);
    std::vector<int64_t> v;
    if (take(close)) return v;
    do {
      if (v.size() > 64) fail("at most 64 entries");
      v.push_back(integer());
    } while (take(','));
    expect(close, fmt::format("'{}' closing the list", close));
    return v;
  }

  void tiled(GspmdSharding& s) {
    expect('=', "'=' after 'devices'");
    size_t at = pos_;
    s.tile_dims = bracketed('[', ']', "'[' opening the tile dimensions");
    if (s.tile_dims.empty()) fail("at least one tile dimension", at);
    int64_t tiles = 1;
    for (int64_t d : s.tile_dims) {
      if (d < 1) fail("tile dimensions >= 1", at);
      if (tiles > (int64_t{1} << 30) / d) fail("at most 2^30 tiles", at);
      tiles *= d;
    }
    skip();
    at = pos_;
    if (peek() == '<') {
      ++pos_;
      expect('=', "'<=' opening an iota device list");
      s.iota_reshape = bracketed('[', ']', "'[' opening the iota's dimensions");
      for (int64_t d : s.iota_reshape)
        if (d < 1 || d > tiles) fail("iota dimensions between 1 and the tile count", at);
      if (s.iota_reshape.empty() || product(s.iota_reshape) != tiles)
        fail(fmt::format("an iota of {} devices (the tile count)", tiles), at);
      skip();
      if (peek() == 'T') {
        ++pos_;
        size_t perm_at = pos_;
        s.iota_transpose = bracketed('(', ')', "'(' opening the transpose");
        std::vector<int64_t> sorted = s.iota_transpose;
        std::sort(sorted.begin(), sorted.end());
        std::vector<int64_t> want(s.iota_reshape.size());
        std::iota(want.begin(), want.end(), 0);
        if (sorted != want)
          fail(fmt::format("a permutation of 0..{}", s.iota_reshape.size() - 1), perm_at);
      }
    } else {
      do {
        if (static_cast<int64_t>(s.devices.size()) >= tiles)
          fail(fmt::format("{} devices (the tile count)", tiles));
        s.devices.push_back(integer());
      } while (take(','));
      if (static_cast<int64_t>(s.devices.size()) != tiles)
        fail(fmt::format("{} devices (the tile count), found {}", tiles, s.devices.size()), at);
      std::vector<int64_t> sorted = s.devices;
      std::sort(sorted.begin(), sorted.end());
      if (sorted.front() < 0 || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        fail("distinct device ids >= 0", at);
    }
  }

  void suffixes(GspmdSharding& s) {
    bool tiled = s.kind == GspmdSharding::Kind::tiled;
    for (;;) {
      skip();
      size_t at = pos_;
      std::string word = identifier();
      if (word.empty()) return;
      if (word == "last_tile_dim_replicate" && tiled && !s.last_tile_dim_replicate &&
          s.last_tile_dims.empty()) {
        s.last_tile_dim_replicate = true;
      } else if (word == "last_tile_dims" && tiled && !s.last_tile_dim_replicate &&
                 s.last_tile_dims.empty()) {
        expect('=', "'=' after 'last_tile_dims'");
        expect('{', "'{' opening the subgroup types");
        do {
          size_t t = pos_;
          std::string type = identifier();
          if (type != "manual" && type != "replicated" && type != "maximal" && type != "unreduced")
            fail("a subgroup type (manual, replicated, maximal, unreduced)", t);
          s.last_tile_dims.push_back(type);
        } while (take(','));
        expect('}', "'}' closing the subgroup types");
        if (s.last_tile_dims.size() >= s.tile_dims.size())
          fail("fewer subgroup types than tile dimensions", at);
      } else if (word == "metadata" && s.metadata.empty()) {
        expect('=', "'=' after 'metadata'");
        skip();
        size_t open = pos_;
        expect('{', "'{' opening the metadata");
        int nest = 1;
        bool quoted = false;
        while (nest > 0) {
          if (pos_ >= text_.size()) fail("'}' closing the metadata", open);
          char c = text_[pos_++];
          if (quoted) {
            if (c == '\\')
              ++pos_;
            else if (c == '"')
              quoted = false;
          } else if (c == '"') {
            quoted = true;
          } else if (c == '{') {
            ++nest;
          } else if (c == '}') {
            --nest;
          }
        }
        s.metadata = std::string(text_.substr(open + 1, pos_ - open - 2));
        if (s.metadata.empty()) s.metadata = " ";  // `metadata={}`: printed back as written
      } else if ((word == "shard_as" || word == "shard_like") && s.shard_group.empty()) {
        s.shard_group = word;
        s.shard_group_id = integer();
      } else {
        pos_ = at;
        fail(tiled ? "last_tile_dim_replicate, last_tile_dims=, metadata=, shard_as, shard_like "
                     "or '}'"
                   : "metadata=, shard_as, shard_like or '}'");
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::string suffix_text(const GspmdSharding& s) {
  std::string out;
  if (s.last_tile_dim_replicate) out += " last_tile_dim_replicate";
  if (!s.last_tile_dims.empty()) {
    out += " last_tile_dims={";
    for (size_t i = 0; i < s.last_tile_dims.size(); ++i)
      out += (i ? ", " : "") + s.last_tile_dims[i];
    out += "}";
  }
  if (!s.shard_group.empty()) out += fmt::format(" {} {}", s.shard_group, s.shard_group_id);
  if (!s.metadata.empty()) out += " metadata={" + (s.metadata == " " ? "" : s.metadata) + "}";
  return out;
}

/// Drops size-1 axes of an iota (reshape, perm) and merges runs that stay in order; identity
/// becomes one axis (XLA's canonical iota tile assignment).
void canonical_iota(Dims& reshape, std::vector<int64_t>& perm) {
  // Drop size-1 axes.
  std::vector<int64_t> keep;
  for (size_t i = 0; i < reshape.size(); ++i)
    if (reshape[i] > 1) keep.push_back(static_cast<int64_t>(i));
  Dims r;
  std::vector<int64_t> p;
  for (int64_t k : keep) r.push_back(reshape[static_cast<size_t>(k)]);
  for (int64_t a : perm)
    if (reshape[static_cast<size_t>(a)] > 1)
      p.push_back(std::find(keep.begin(), keep.end(), a) - keep.begin());
  // Merge p[i], p[i+1] when p[i+1] == p[i] + 1.
  bool merged = true;
  while (merged && p.size() > 1) {
    merged = false;
    for (size_t i = 0; i + 1 < p.size(); ++i) {
      if (p[i + 1] != p[i] + 1) continue;
      int64_t a = p[i];
      r[static_cast<size_t>(a)] *= r[static_cast<size_t>(a + 1)];
      r.erase(r.begin() + a + 1);
      p.erase(p.begin() + static_cast<long>(i) + 1);
      for (int64_t& q : p)
        if (q > a) --q;
      merged = true;
      break;
    }
  }
  if (r.empty()) r = {1};
  bool identity = true;
  for (size_t i = 0; i < p.size(); ++i) identity = identity && p[i] == static_cast<int64_t>(i);
  if (identity) {
    r = {product(r)};
    p.clear();
  }
  reshape = r;
  perm = p;
}

}  // namespace

GspmdSharding parse_gspmd_sharding(std::string_view text) {
  Reader r(text);
  GspmdSharding s = r.sharding();
  r.end();
  return s;
}

std::string GspmdSharding::to_string() const {
  switch (kind) {
    case Kind::replicated:
      return "{replicated" + suffix_text(*this) + "}";
    case Kind::manual:
      return "{manual" + suffix_text(*this) + "}";
    case Kind::unknown:
      return "{unknown" + suffix_text(*this) + "}";
    case Kind::unreduced:
      return "{unreduced" + suffix_text(*this) + "}";
    case Kind::maximal:
      return fmt::format("{{maximal device={}{}}}", device, suffix_text(*this));
    case Kind::tuple: {
      std::string out = "{";
      for (size_t i = 0; i < elements.size(); ++i) out += (i ? ", " : "") + elements[i].to_string();
      return out + "}";
    }
    case Kind::tiled:
      break;
  }
  std::string out = "{devices=[" + join(tile_dims) + "]";
  if (devices.empty()) {
    out += "<=[" + join(iota_reshape) + "]";
    if (!iota_transpose.empty()) out += "T(" + join(iota_transpose) + ")";
  } else {
    out += join(devices);
  }
  return out + suffix_text(*this) + "}";
}

std::vector<int64_t> GspmdSharding::tile_devices() const {
  if (kind != Kind::tiled) return {};
  if (!devices.empty()) return devices;
  // Element t of transpose(reshape(iota(N), iota_reshape), iota_transpose), row-major.
  size_t rank = iota_reshape.size();
  std::vector<int64_t> perm = iota_transpose;
  if (perm.empty()) {
    perm.resize(rank);
    std::iota(perm.begin(), perm.end(), 0);
  }
  std::vector<int64_t> strides(rank, 1);
  for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * iota_reshape[i];
  Dims shape(rank);
  for (size_t i = 0; i < rank; ++i) shape[i] = iota_reshape[static_cast<size_t>(perm[i])];
  int64_t n = product(iota_reshape);
  std::vector<int64_t> out(static_cast<size_t>(n));
  std::vector<int64_t> coord(rank, 0);
  for (int64_t t = 0; t < n; ++t) {
    int64_t id = 0;
    for (size_t i = 0; i < rank; ++i) id += coord[i] * strides[static_cast<size_t>(perm[i])];
    out[static_cast<size_t>(t)] = id;
    for (size_t i = rank; i-- > 0;) {
      if (++coord[i] < shape[i]) break;
      coord[i] = 0;
    }
  }
  return out;
}

std::size_t GspmdSharding::data_rank() const {
  if (kind != Kind::tiled) return 0;
  return tile_dims.size() - (last_tile_dim_replicate ? 1 : 0) - last_tile_dims.size();
}

namespace {
bool only_replicated_subgroups(const GspmdSharding& s) {
  return std::all_of(s.last_tile_dims.begin(), s.last_tile_dims.end(),
                     [](const std::string& t) { return t == "replicated"; });
}
const char* kind_name(GspmdSharding::Kind k) {
  switch (k) {
    case GspmdSharding::Kind::manual:
      return "manual";
    case GspmdSharding::Kind::unknown:
      return "unknown";
    case GspmdSharding::Kind::unreduced:
      return "unreduced";
    case GspmdSharding::Kind::maximal:
      return "maximal";
    case GspmdSharding::Kind::tuple:
      return "tuple";
    default:
      return "tiled";
  }
}
}  // namespace

ShardLayout shard_layout(const GspmdSharding& s, const Dims& global, int64_t num_devices) {
  if (s.kind == GspmdSharding::Kind::replicated)
    return shard_layout_from_tiles(global, {}, {}, num_devices);
  if (s.kind != GspmdSharding::Kind::tiled)
    throw ShardingError(-1, "",
                        fmt::format("sharding {} is {}: it does not split one array over devices",
                                    s.to_string(), kind_name(s.kind)));
  if (!only_replicated_subgroups(s))
    throw ShardingError(
        -1, "", fmt::format("sharding {} has subgroups other than replicated", s.to_string()));
  if (s.data_rank() != global.size())
    throw ShardingError(
        -1, "",
        fmt::format("sharding {} splits {} dimension(s), the array [{}] has {}", s.to_string(),
                    s.data_rank(), dims_to_string(global), global.size()));
  return shard_layout_from_tiles(global, s.tile_dims, s.tile_devices(), num_devices);
}

std::optional<std::pair<Mesh, Sharding>> to_mesh_sharding(const GspmdSharding& s, std::size_t rank,
                                                          int64_t num_devices) {
  if (s.kind == GspmdSharding::Kind::replicated) {
    if (num_devices < 1) return std::nullopt;
    return std::pair{Mesh{{{"r", num_devices}}, {}}, Sharding::replicated(rank)};
  }
  if (s.kind != GspmdSharding::Kind::tiled || !only_replicated_subgroups(s) ||
      s.data_rank() != rank)
    return std::nullopt;
  Mesh mesh;
  Sharding sharding = Sharding::replicated(rank);
  for (size_t i = 0; i < s.tile_dims.size(); ++i) {
    if (s.tile_dims[i] == 1) continue;
    std::string name = i < rank ? fmt::format("d{}", i) : fmt::format("r{}", i - rank);
    if (i >= rank && s.tile_dims.size() == rank + 1) name = "r";
    mesh.axes.push_back({name, s.tile_dims[i]});
    if (i < rank) sharding.dims[i].push_back(name);
  }
  std::vector<int64_t> devs = s.tile_devices();
  for (size_t k = 0; k < devs.size(); ++k)
    if (devs[k] != static_cast<int64_t>(k)) {
      mesh.device_ids = devs;
      break;
    }
  try {
    mesh.validate();  // a device list that is not 0..N-1 in some order
  } catch (const ShardingError&) {
    return std::nullopt;
  }
  return std::pair{mesh, sharding};
}

GspmdSharding gspmd_sharding(const Mesh& mesh, const Sharding& sharding) {
  mesh.validate();
  std::vector<int64_t> order;  // mesh axes: listed ones by dimension (major first), then the rest
  GspmdSharding s;
  s.kind = GspmdSharding::Kind::tiled;
  for (const auto& dim : sharding.dims) {
    int64_t tiles = 1;
    for (const std::string& a : dim) {
      int64_t k = static_cast<int64_t>(mesh.axis_index(a));
      if (std::find(order.begin(), order.end(), k) != order.end())
        throw ShardingError(
            -1, a, fmt::format("mesh axis \"{}\" used twice in {}", a, sharding.to_string()));
      order.push_back(k);
      tiles *= mesh.axes[static_cast<size_t>(k)].size;
    }
    s.tile_dims.push_back(tiles);
  }
  int64_t replicas = 1;
  for (size_t k = 0; k < mesh.axes.size(); ++k)
    if (std::find(order.begin(), order.end(), static_cast<int64_t>(k)) == order.end()) {
      order.push_back(static_cast<int64_t>(k));
      replicas *= mesh.axes[k].size;
    }
  if (product(s.tile_dims) == 1) return GspmdSharding{};  // {replicated}
  if (replicas > 1) {
    s.tile_dims.push_back(replicas);
    s.last_tile_dim_replicate = true;
  }
  Dims reshape;
  for (const MeshAxis& a : mesh.axes) reshape.push_back(a.size);
  std::vector<int64_t> perm = order;
  canonical_iota(reshape, perm);
  s.iota_reshape = reshape;
  s.iota_transpose = perm;
  if (!mesh.device_ids.empty()) {
    std::vector<int64_t> logical = s.tile_devices();  // positions in the mesh
    s.iota_reshape.clear();
    s.iota_transpose.clear();
    for (int64_t k : logical) s.devices.push_back(mesh.device(k));
  }
  return s;
}

}  // namespace hhlo
