// Calling a jax.export artifact from C++ (hhlo/exported_function.h).
#include "hhlo/exported_function.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "hhlo/core/file_io.h"

namespace hhlo {

ExportedFunction::ExportedFunction(std::shared_ptr<const std::string> bytes,
                                   std::shared_ptr<const Exported> artifact, int vjp_order,
                                   Session& session)
    : bytes_(std::move(bytes)),
      artifact_(std::move(artifact)),
      vjp_order_(vjp_order),
      session_(&session) {
  level_ = artifact_.get();
  for (int k = 0; k < vjp_order_; ++k) level_ = level_->vjp.get();
}

std::vector<Array> ExportedFunction::call(const std::vector<Array>& args) const {
  return session_->run(*bytes_, args, {}, vjp_order_);
}

std::map<std::string, Array> ExportedFunction::call(
    const std::map<std::string, Array>& args) const {
  const Exported& x = signature();
  std::vector<const Array*> flat;
  std::vector<std::string> missing, unknown;
  for (const std::string& name : x.in_names) {
    auto it = args.find(name);
    if (it == args.end())
      missing.push_back(name);
    else
      flat.push_back(&it->second);
  }
  for (const auto& [name, a] : args)
    if (std::find(x.in_names.begin(), x.in_names.end(), name) == x.in_names.end())
      unknown.push_back(name);
  if (!missing.empty() || !unknown.empty())
    throw Error(fmt::format("'{}' takes the inputs [{}]: missing [{}], unknown [{}]",
                            x.function_name, fmt::join(x.in_names, ", "), fmt::join(missing, ", "),
                            fmt::join(unknown, ", ")));
  std::vector<Array> out = session_->run_flat(*bytes_, flat, {}, vjp_order_);
  std::map<std::string, Array> named;
  for (std::size_t i = 0; i < out.size(); ++i)
    named.emplace(i < x.out_names.size() ? x.out_names[i] : fmt::format("out{}", i),
                  std::move(out[i]));
  return named;
}

ExportedFunction ExportedFunction::vjp() const {
  if (!level_->has_vjp())
    throw Error(
        fmt::format("'{}' has no VJP of order {}: the artifact was serialized with vjp_order={} "
                    "(Exported.serialize(vjp_order=k) keeps the VJPs up to order k)",
                    artifact_->function_name, vjp_order_ + 1, vjp_order_));
  return ExportedFunction(bytes_, artifact_, vjp_order_ + 1, *session_);
}

ExportedFunction load_exported(std::string bytes, Session& session, std::string source_name) {
  auto x = std::make_shared<const Exported>(
      read_exported(bytes, {.source_name = source_name, .verify = true}));
  return ExportedFunction(std::make_shared<const std::string>(std::move(bytes)), std::move(x), 0,
                          session);
}

ExportedFunction load_exported_file(const std::string& path, Session& session) {
  return load_exported(read_file(path, "jax.export artifact"), session, path);
}

}  // namespace hhlo
