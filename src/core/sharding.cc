#include "hhlo/core/sharding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

namespace hhlo {
namespace {

std::string quoted_axes(const std::vector<std::string>& axes) {
  std::string s;
  for (const std::string& a : axes) s += fmt::format("{}\"{}\"", s.empty() ? "" : ", ", a);
  return "{" + s + "}";
}

std::string axis_names(const Mesh& mesh) {
  std::string s;
  for (const MeshAxis& a : mesh.axes)
    s += fmt::format("{}\"{}\"={}", s.empty() ? "" : ", ", a.name, a.size);
  return "[" + s + "]";
}

}  // namespace

int64_t Mesh::num_devices() const {
  int64_t n = 1;
  for (const MeshAxis& a : axes) n *= a.size;
  return n;
}

std::size_t Mesh::axis_index(std::string_view name) const {
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return i;
  throw ShardingError(-1, std::string(name),
                      fmt::format("sharding: mesh axis \"{}\" is not an axis of the mesh {}", name,
                                  axis_names(*this)));
}

void Mesh::validate() const {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].name.empty()) throw ShardingError(-1, "", "mesh: an axis has an empty name");
    if (axes[i].size < 1)
      throw ShardingError(
          -1, axes[i].name,
          fmt::format("mesh: axis \"{}\" has size {}, expected >= 1", axes[i].name, axes[i].size));
    for (std::size_t j = 0; j < i; ++j)
      if (axes[j].name == axes[i].name)
        throw ShardingError(-1, axes[i].name,
                            fmt::format("mesh: axis \"{}\" appears twice", axes[i].name));
  }
  if (device_ids.empty()) return;
  int64_t n = num_devices();
  if (static_cast<int64_t>(device_ids.size()) != n)
    throw ShardingError(-1, "",
                        fmt::format("mesh {}: {} device ids given for {} devices",
                                    axis_names(*this), device_ids.size(), n));
  std::vector<int64_t> sorted = device_ids;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < n; ++i)
    if (sorted[i] != i)
      throw ShardingError(-1, "",
                          fmt::format("mesh {}: device ids [{}] are not a permutation of 0..{}",
                                      axis_names(*this), fmt::join(device_ids, ", "), n - 1));
}

std::string Mesh::to_string() const {
  std::string s = "<" + axis_names(*this);
  if (!device_ids.empty()) s += fmt::format(", device_ids=[{}]", fmt::join(device_ids, ", "));
  return s + ">";
}

std::string Sharding::to_string() const {
  std::string s;
  for (const auto& d : dims) s += (s.empty() ? "" : ", ") + quoted_axes(d);
  return "[" + s + "]";
}

std::string ShardLayout::to_string() const {
  return fmt::format("[{}] as {} shards of [{}]", dims_to_string(global), devices.size(),
                     dims_to_string(shard));
}

bool ShardLayout::same_placement(const ShardLayout& o) const {
  if (global != o.global || shard != o.shard || devices.size() != o.devices.size()) return false;
  std::vector<std::pair<int64_t, Dims>> a, b;
  for (std::size_t k = 0; k < devices.size(); ++k) a.emplace_back(devices[k], offsets[k]);
  for (std::size_t k = 0; k < o.devices.size(); ++k) b.emplace_back(o.devices[k], o.offsets[k]);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

ShardLayout shard_layout(const Mesh& mesh, const Sharding& sharding, const Dims& global) {
  mesh.validate();
  if (sharding.dims.size() != global.size())
    throw ShardingError(-1, "",
                        fmt::format("sharding {} has {} dimension(s), the array [{}] has rank {}",
                                    sharding.to_string(), sharding.dims.size(),
                                    dims_to_string(global), global.size()));
  // axis -> the array dimension it splits
  std::vector<int64_t> axis_dim(mesh.axes.size(), -1);
  ShardLayout out{global, global, {}, {}};
  for (std::size_t i = 0; i < global.size(); ++i) {
    int64_t parts = 1;
    for (const std::string& name : sharding.dims[i]) {
      std::size_t a = mesh.axis_index(name);
      if (axis_dim[a] >= 0)
        throw ShardingError(
            static_cast<int64_t>(i), name,
            fmt::format("sharding {}: mesh axis \"{}\" splits dimensions {} and {}; "
                        "an axis may split one dimension only",
                        sharding.to_string(), name, axis_dim[a], i));
      axis_dim[a] = static_cast<int64_t>(i);
      parts *= mesh.axes[a].size;
    }
    if (global[i] % parts != 0) {
      std::string sizes;
      for (const std::string& name : sharding.dims[i])
        sizes += fmt::format("{}\"{}\"={}", sizes.empty() ? "" : " x ", name,
                             mesh.axes[mesh.axis_index(name)].size);
      throw ShardingError(
          static_cast<int64_t>(i), sharding.dims[i].front(),
          fmt::format("sharding {} of an array [{}]: dimension {} has size {}, which is not "
                      "divisible by its mesh axes {} (product {})",
                      sharding.to_string(), dims_to_string(global), i, global[i], sizes, parts));
    }
    out.shard[i] = global[i] / parts;
  }
  int64_t n = mesh.num_devices();
  std::vector<int64_t> coord(mesh.axes.size());
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k;  // row-major mesh position -> coordinates
    for (std::size_t a = mesh.axes.size(); a-- > 0;) {
      coord[a] = rest % mesh.axes[a].size;
      rest /= mesh.axes[a].size;
    }
    Dims offset(global.size(), 0);
    for (std::size_t i = 0; i < global.size(); ++i) {
      int64_t tile = 0;  // mixed radix over this dimension's axes, major first
      for (const std::string& name : sharding.dims[i]) {
        std::size_t a = mesh.axis_index(name);
        tile = tile * mesh.axes[a].size + coord[a];
      }
      offset[i] = tile * out.shard[i];
    }
    out.devices.push_back(mesh.device(k));
    out.offsets.push_back(std::move(offset));
  }
  return out;
}

ShardLayout shard_layout_from_tiles(const Dims& global, const Dims& tile_dims,
                                    const std::vector<int64_t>& tile_devices, int64_t num_devices) {
  ShardLayout out{global, global, {}, {}};
  if (tile_dims.empty()) {  // replicated
    for (int64_t d = 0; d < num_devices; ++d) {
      out.devices.push_back(d);
      out.offsets.push_back(Dims(global.size(), 0));
    }
    return out;
  }
  if (tile_dims.size() < global.size())
    throw ShardingError(-1, "",
                        fmt::format("tile assignment [{}] has fewer dimensions than the array [{}]",
                                    dims_to_string(tile_dims), dims_to_string(global)));
  int64_t tiles = 1;
  for (int64_t t : tile_dims) tiles *= t;
  if (static_cast<int64_t>(tile_devices.size()) != tiles)
    throw ShardingError(-1, "",
                        fmt::format("tile assignment [{}] has {} tiles but {} devices",
                                    dims_to_string(tile_dims), tiles, tile_devices.size()));
  for (std::size_t i = 0; i < global.size(); ++i) {
    if (tile_dims[i] < 1 || global[i] % tile_dims[i] != 0)
      throw ShardingError(static_cast<int64_t>(i), "",
                          fmt::format("array [{}]: dimension {} has size {}, which is not "
                                      "divisible by its {} tiles",
                                      dims_to_string(global), i, global[i], tile_dims[i]));
    out.shard[i] = global[i] / tile_dims[i];
  }
  for (int64_t j = 0; j < tiles; ++j) {
    Dims coord(tile_dims.size());
    int64_t rest = j;
    for (std::size_t i = tile_dims.size(); i-- > 0;) {
      coord[i] = rest % tile_dims[i];
      rest /= tile_dims[i];
    }
    Dims offset(global.size());
    for (std::size_t i = 0; i < global.size(); ++i) offset[i] = coord[i] * out.shard[i];
    out.devices.push_back(tile_devices[j]);
    out.offsets.push_back(std::move(offset));
  }
  return out;
}

namespace {

void check_block(const char* what, const Dims& global, const Dims& offset, const Dims& size) {
  bool ok = offset.size() == global.size() && size.size() == global.size();
  for (std::size_t i = 0; ok && i < global.size(); ++i)
    ok = offset[i] >= 0 && size[i] >= 0 && offset[i] + size[i] <= global[i];
  if (!ok)
    throw ShapeError(
        what, "",
        fmt::format("block of size [{}] at [{}] does not lie inside an array [{}]",
                    dims_to_string(size), dims_to_string(offset), dims_to_string(global)));
}

/// Copies the block rows: `to_block` copies global -> block, else block -> global.
void copy_block(std::byte* global, std::byte* block, const Dims& gdims, const Dims& offset,
                const Dims& size, std::size_t elem, bool to_block) {
  std::size_t rank = gdims.size();
  int64_t count = 1;
  for (int64_t s : size) count *= s;
  if (count == 0) return;
  if (rank == 0) {
    std::memcpy(to_block ? block : global, to_block ? global : block, elem);
    return;
  }
  std::vector<int64_t> stride(rank, 1);  // global strides in elements
  for (std::size_t i = rank - 1; i-- > 0;) stride[i] = stride[i + 1] * gdims[i + 1];
  std::size_t row = static_cast<std::size_t>(size[rank - 1]) * elem;
  int64_t rows = count / size[rank - 1];
  Dims idx(rank, 0);  // index over the block's leading dims
  for (int64_t r = 0; r < rows; ++r) {
    int64_t g = 0;
    for (std::size_t i = 0; i < rank; ++i) g += (offset[i] + idx[i]) * stride[i];
    std::byte* gp = global + g * elem;
    std::byte* bp = block + r * row;
    std::memcpy(to_block ? bp : gp, to_block ? gp : bp, row);
    for (std::size_t i = rank - 1; i-- > 0;) {
      if (++idx[i] < size[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace

Array extract_block(const Array& global, const Dims& offset, const Dims& size) {
  check_block("extract_block", global.dims(), offset, size);
  Array out(global.dtype(), size);
  copy_block(static_cast<std::byte*>(const_cast<void*>(global.data())),
             static_cast<std::byte*>(out.data()), global.dims(), offset, size,
             byte_size(global.dtype()), true);
  return out;
}

void insert_block(Array& global, const Array& block, const Dims& offset) {
  if (block.dtype() != global.dtype())
    throw ShapeError("insert_block", "",
                     fmt::format("block {} into array {}: dtypes differ", block.type().to_string(),
                                 global.type().to_string()));
  check_block("insert_block", global.dims(), offset, block.dims());
  copy_block(static_cast<std::byte*>(global.data()),
             static_cast<std::byte*>(const_cast<void*>(block.data())), global.dims(), offset,
             block.dims(), byte_size(global.dtype()), false);
}

}  // namespace hhlo
