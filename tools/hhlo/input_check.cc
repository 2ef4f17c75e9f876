#include "input_check.h"

#include <fmt/format.h>

#include <optional>

#include "hhlo/core/error.h"

namespace hhlo::cli {

/// The global types an SPMD executable takes: shard dtype, global dims of its layout.
std::vector<TensorType> global_input_types(const LoadedExecutable& exe) {
  std::vector<TensorType> out;
  for (std::size_t i = 0; i < exe.input_layouts()->size(); ++i)
    out.push_back({(*exe.input_types())[i].dtype, (*exe.input_layouts())[i].global});
  return out;
}

namespace {

/// `raw` (bytes) as an array of the narrow type `t`, each byte an element's bits; throws naming
/// input `i` when a byte has bits above the type's width.
Array bytes_as(Array raw, DType t, std::size_t i, const std::string& name) {
  const auto* p = static_cast<const uint8_t*>(raw.data());
  const unsigned width = static_cast<unsigned>(bit_width(t));
  for (int64_t k = 0; k < raw.num_elements(); ++k)
    if (width < 8 && (p[k] >> width) != 0)
      throw Error(
          fmt::format("input {} ('{}') holds byte 0x{:02X} at element {}, which is no {} "
                      "(its {} bits are the low bits of each byte)",
                      i, name, p[k], k, mlir_name(t), width));
  return Array::from_bytes(TensorType{t, raw.dims()}, raw.data(), raw.byte_size());
}

}  // namespace

void check_inputs(const LoadedExecutable& exe, std::vector<Array>& inputs,
                  const std::vector<std::string>& names, const std::string& entry) {
  std::optional<std::vector<TensorType>> want = exe.input_types();
  if (want && exe.input_layouts()) want = global_input_types(exe);  // SPMD: global shapes
  if (!want)
    throw Error(
        fmt::format("the parameter types of the program could not be read ({}); "
                    "refusing to run it on unchecked inputs",
                    exe.signature_error()));
  check_inputs(*want, inputs, names, entry);
}

void check_inputs(const std::vector<TensorType>& want, std::vector<Array>& inputs,
                  const std::vector<std::string>& names, const std::string& entry) {
  const std::string fn = "@" + (entry.empty() ? std::string("main") : entry);
  if (want.size() != inputs.size()) {
    std::string types;
    for (const TensorType& t : want) types += (types.empty() ? "" : ", ") + t.to_string();
    throw Error(fmt::format("{} takes {} input(s) ({}), {} given with --input", fn, want.size(),
                            types.empty() ? "none" : types, inputs.size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& w = want[i];
    if (is_narrow(w.dtype) && inputs[i].dtype() == DType::ui8)
      inputs[i] = bytes_as(std::move(inputs[i]), w.dtype, i, names[i]);
    const TensorType& got = inputs[i].type();
    if (w.dtype != got.dtype)
      throw Error(fmt::format("input {} ('{}') has dtype {}, {} parameter {} expects {} ({})", i,
                              names[i], dtype_name(got.dtype), fn, i, dtype_name(w.dtype),
                              w.to_string()));
    bool dims_ok = w.rank() == got.rank();
    for (std::size_t d = 0; dims_ok && d < w.dims.size(); ++d)
      dims_ok = w.dims[d] == kDynamic || w.dims[d] == got.dims[d];
    if (!dims_ok)
      throw Error(fmt::format("input {} ('{}') has shape [{}], {} parameter {} expects {}", i,
                              names[i], dims_to_string(got.dims), fn, i, w.to_string()));
  }
}

}  // namespace hhlo::cli
