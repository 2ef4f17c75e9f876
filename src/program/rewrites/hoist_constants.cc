// The hoisting of large constants into parameters of `@main` (hhlo/program/hoist_constants.h).
#include "hhlo/program/hoist_constants.h"

#include <fmt/format.h>

#include <unordered_map>

#include "hhlo/core/error.h"
#include "hhlo/ir/inline.h"
#include "hhlo/program/program.h"

namespace hhlo {
namespace {

/// The value of `op` when it is a `stablehlo.constant` of at least `min_bytes` bytes, else null.
std::shared_ptr<const Array> large_constant(const Op& op, int64_t min_bytes) {
  if (op.name() != "stablehlo.constant") return nullptr;
  const Attribute* v = op.attr("value");
  const DenseAttr* dense = v ? v->get_if<DenseAttr>() : nullptr;
  if (!dense || !dense->array) return nullptr;
  if (static_cast<int64_t>(dense->array->byte_size()) < min_bytes) return nullptr;
  return dense->array;
}

}  // namespace

HoistedConstants hoist_constants(const Module& module, int64_t min_bytes) {
  HoistedConstants r;
  if (min_bytes <= 0 || num_partitions_of(module) > 1) return r;
  const Func* main = module.find("main");
  if (!main || !main->returned())
    throw Error("hoist_constants: the module has no @main that returns");
  std::unordered_map<const Op*, std::size_t> index;
  std::vector<TensorType> types = main->arg_types();
  const std::size_t first = types.size();
  for (const auto& op : main->body().ops())
    if (std::shared_ptr<const Array> value = large_constant(*op, min_bytes)) {
      index.emplace(op.get(), r.values.size());
      types.push_back(value->type());
      r.values.push_back(std::move(value));
    }
  if (r.values.empty()) return r;
  Module& out = r.module;
  out.set_name(module.name());
  for (const NamedAttr& a : module.attrs()) out.set_attr(a);
  for (const auto& [name, mesh] : module.meshes()) out.add_mesh(name, mesh);
  Func& f = out.add_func("main", types);
  for (const NamedAttr& a : main->attrs()) f.set_attr(a);
  for (std::size_t i = 0; i < first; ++i)
    for (const NamedAttr& a : main->arg_attrs(i)) f.set_arg_attr(i, a);
  std::vector<Value> args(f.args().begin(), f.args().begin() + static_cast<std::ptrdiff_t>(first));
  InlineRewrite hoist = [&](const Op& op,
                            const std::vector<Value>&) -> std::optional<std::vector<Value>> {
    auto it = index.find(&op);
    if (it == index.end()) return std::nullopt;
    return std::vector<Value>{f.arg(first + it->second)};
  };
  // At the entry's own func.return location (ret would record this file's).
  f.ret_at(inline_call(f, module, "main", args, hoist), main->body().ops().back()->loc());
  for (std::size_t i = 0; i < main->result_types().size(); ++i)
    for (const NamedAttr& a : main->result_attrs(i)) f.set_result_attr(i, a);
  return r;
}

void bind_hoisted(LoadedExecutable& exe, const Client& client,
                  const std::vector<std::shared_ptr<const Array>>& values) {
  if (values.empty()) return;
  std::vector<Device> devices = exe.devices();
  std::optional<Device> device;
  if (devices.size() == 1) device = devices[0];
  std::vector<Buffer> buffers;
  buffers.reserve(values.size());
  for (const auto& v : values) buffers.push_back(client.buffer_from_host(*v, device));
  exe.bind_trailing(std::move(buffers));
}

}  // namespace hhlo
