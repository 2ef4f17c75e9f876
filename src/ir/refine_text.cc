// refine_program_text (hhlo/ir/refine.h): parse, pick the entry, refine, print; the one path the
// CLI and the Session take for shape-polymorphic programs.
#include <fmt/format.h>

#include "hhlo/ir/entry.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/refine.h"

namespace hhlo {

std::optional<std::string> refine_program_text(std::string_view text,
                                               std::span<const TensorType> arg_types,
                                               std::string_view entry,
                                               std::string_view source_name) {
  if (is_mlir_bytecode(text) || text.find('?') == std::string_view::npos) return std::nullopt;
  std::optional<Module> parsed;
  try {
    parsed.emplace(parse_module(text, {.source_name = std::string(source_name), .verify = false}));
  } catch (const Error&) {
    return std::nullopt;
  }
  std::string name;
  try {
    name = resolve_entry(*parsed, entry);
  } catch (const Error&) {
    return std::nullopt;
  }
  const Func* f = parsed->find(name);
  if (!f || !has_dynamic_shapes(*f)) return std::nullopt;
  if (arg_types.size() != f->arg_types().size())
    throw Error(fmt::format("@{} of '{}' takes {} argument(s) {}, {} given", f->name(), source_name,
                            f->arg_types().size(), types_to_string(f->arg_types()),
                            arg_types.size()));
  select_entry(*parsed, name);
  refine_shapes(*parsed, arg_types);
  return to_mlir(*parsed);
}

}  // namespace hhlo
