#include "program_shape.h"

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "hhlo/core/error.h"
#include "hhlo/core/op_sharding_proto.h"
#include "hhlo/core/proto_wire.h"
#include "pjrt.h"

namespace hhlo::detail {
namespace {

/// Reads the fields of message `bytes` in order, calling `visit(field)` on each until it returns
/// false (stop). False when `bytes` is malformed before that.
template <typename Visit>
bool read_fields(std::string_view bytes, Visit visit) {
  ProtoWire w(bytes);
  while (!w.done()) {
    ProtoField f;
    if (!w.next(f)) return false;
    if (!visit(f)) return true;
  }
  return true;
}

/// xla_data.proto PrimitiveType -> DType.
std::optional<DType> dtype_of(uint64_t primitive_type) {
  switch (primitive_type) {
    case 1:
      return DType::pred;
    case 2:
      return DType::i8;
    case 3:
      return DType::i16;
    case 4:
      return DType::i32;
    case 5:
      return DType::i64;
    case 6:
      return DType::ui8;
    case 7:
      return DType::ui16;
    case 8:
      return DType::ui32;
    case 9:
      return DType::ui64;
    case 10:
      return DType::f16;
    case 11:
      return DType::f32;
    case 12:
      return DType::f64;
    case 15:
      return DType::c64;
    case 16:
      return DType::bf16;
    case 18:
      return DType::c128;
    case 19:
      return DType::f8E5M2;
    case 20:
      return DType::f8E4M3FN;
    case 21:
      return DType::i4;
    case 22:
      return DType::ui4;
    case 23:
      return DType::f8E4M3B11FNUZ;
    case 24:
      return DType::f8E5M2FNUZ;
    case 25:
      return DType::f8E4M3FNUZ;
    case 26:
      return DType::i2;
    case 27:
      return DType::ui2;
    case 28:
      return DType::f8E4M3;
    case 29:
      return DType::f8E3M4;
    case 32:
      return DType::f4E2M1FN;
    case 33:
      return DType::f8E8M0FNU;
    case 35:
      return DType::f6E3M2FN;
    case 36:
      return DType::f6E2M3FN;
    default:
      return std::nullopt;
  }
}

constexpr uint64_t kTuple = 13, kToken = 17;

struct Shape {
  uint64_t element_type = 0;
  Dims dims;
  bool dynamic = false;
  std::vector<std::string_view> tuple;  // undecoded tuple_shapes
};

std::optional<Shape> read_shape(std::string_view bytes) {
  Shape s;
  bool bad_dims = false;
  bool read = read_fields(bytes, [&](const ProtoField& f) {
    if (f.number == 2 && f.wire_type == 0) s.element_type = f.scalar;
    bool dims = f.number == 3 && (f.wire_type == 0 || f.wire_type == 2);  // packed or not
    if (dims && !append_integers(f, s.dims)) return !(bad_dims = true);
    if (f.number == 4 && f.wire_type == 2) s.tuple.push_back(f.payload);
    if (f.number == 6 && f.wire_type == 0 && f.scalar) s.dynamic = true;
    if (f.number == 6 && f.wire_type == 2)
      for (char c : f.payload) s.dynamic |= c != 0;
    return true;
  });
  if (!read || bad_dims) return std::nullopt;
  return s;
}

/// A ShapeProto as a TensorType, or the reason it is not one.
std::variant<TensorType, std::string> tensor_type(const Shape& s, std::string_view what) {
  if (s.element_type == kToken) return fmt::format("{} is a token", what);
  if (s.element_type == kTuple) return fmt::format("{} is a nested tuple", what);
  std::optional<DType> t = dtype_of(s.element_type);
  if (!t)
    return fmt::format("{} has XLA element type {}, which hhlo does not support", what,
                       s.element_type);
  if (s.dynamic) return fmt::format("{} has a dynamic dimension", what);
  for (int64_t d : s.dims)
    if (d < 0) return fmt::format("{} has a negative dimension {}", what, d);
  return TensorType{*t, s.dims};
}

}  // namespace

std::variant<ProgramShape, std::string> decode_hlo_program_shape(std::string_view proto) {
  std::optional<std::string_view> program_shape;
  if (!read_fields(proto, [&](const ProtoField& f) {
        if (f.number == 4 && f.wire_type == 2) program_shape = f.payload;
        return true;
      }))
    return std::string("the optimized program is not a valid HloModuleProto");
  if (!program_shape) return std::string("the optimized program has no host_program_shape");

  ProgramShape out;
  std::string error;
  auto fail = [&](std::string why) {
    error = std::move(why);
    return false;
  };
  bool read = read_fields(*program_shape, [&](const ProtoField& f) {
    if (f.wire_type != 2 || (f.number != 1 && f.number != 2)) return true;
    std::optional<Shape> shape = read_shape(f.payload);
    if (!shape) return fail("a ShapeProto of the program shape is malformed");
    if (f.number == 1) {
      auto t = tensor_type(*shape, fmt::format("parameter {}", out.parameters.size()));
      if (auto* why = std::get_if<std::string>(&t)) return fail(*why);
      out.parameters.push_back(std::get<TensorType>(t));
      return true;
    }
    std::vector<Shape> results;
    if (shape->element_type == kTuple) {
      for (std::string_view element : shape->tuple) {
        std::optional<Shape> e = read_shape(element);
        if (!e) return fail("a result ShapeProto is malformed");
        results.push_back(std::move(*e));
      }
    } else {
      results.push_back(std::move(*shape));
    }
    for (const Shape& r : results) {
      auto t = tensor_type(r, fmt::format("result {}", out.results.size()));
      if (auto* why = std::get_if<std::string>(&t)) return fail(*why);
      out.results.push_back(std::get<TensorType>(t));
    }
    return true;
  });
  if (!read) return std::string("the program shape is not a valid ProgramShapeProto");
  if (!error.empty()) return error;
  return out;
}

}  // namespace hhlo::detail

namespace hhlo::detail {

std::optional<std::string> optimized_program(const PJRT_Api* api, PJRT_LoadedExecutable* loaded,
                                             std::string& format, std::string& why) {
  if (offsetof(PJRT_Api, PJRT_Executable_OptimizedProgram) >= api->struct_size) {
    why = "the plugin has no PJRT_Executable_OptimizedProgram";
    return std::nullopt;
  }
  auto g = args<PJRT_LoadedExecutable_GetExecutable_Args>();
  g.loaded_executable = loaded;
  if (PJRT_Error* e = api->PJRT_LoadedExecutable_GetExecutable(&g)) {
    why = "PJRT_LoadedExecutable_GetExecutable failed: " + take_error(api, e).message;
    return std::nullopt;
  }
  // PJRT_LoadedExecutable_GetExecutable allocates: destroy what it gave.
  PjrtHandle<PJRT_Executable> owner(api, g.executable);
  auto program = args<PJRT_Program>();
  auto a = args<PJRT_Executable_OptimizedProgram_Args>();
  a.executable = g.executable;
  a.program = &program;
  std::string bytes;
  PJRT_Error* e = api->PJRT_Executable_OptimizedProgram(&a);  // first call: the size
  if (!e) {
    bytes.resize(program.code_size);
    program.code = bytes.data();
    e = api->PJRT_Executable_OptimizedProgram(&a);
  }
  if (e) {
    why = "PJRT_Executable_OptimizedProgram failed: " + take_error(api, e).message;
    return std::nullopt;
  }
  bytes.resize(program.code_size);
  format.assign(program.format ? program.format : "", program.format ? program.format_size : 0);
  return bytes;
}

namespace {

/// Appends `s` to `out` if the runtime can lay it out (replicated or tiled), the elements of a
/// TUPLE sharding at the top level (spmd_output_sharding: one per result); else the reason.
std::optional<std::string> flatten_sharding(const GspmdSharding& s, std::vector<GspmdSharding>& out,
                                            bool top_level) {
  switch (s.kind) {
    case GspmdSharding::Kind::replicated:
    case GspmdSharding::Kind::tiled:
      out.push_back(s);
      return std::nullopt;
    case GspmdSharding::Kind::tuple:
      if (!top_level) return "a nested tuple sharding";
      for (const GspmdSharding& e : s.elements)
        if (auto why = flatten_sharding(e, out, false)) return why;
      return std::nullopt;
    case GspmdSharding::Kind::maximal:
      return "a MAXIMAL (single-device) sharding";
    case GspmdSharding::Kind::manual:
      return "a MANUAL sharding";
    case GspmdSharding::Kind::unknown:
      return "an UNKNOWN sharding";
    case GspmdSharding::Kind::unreduced:
      return "an UNREDUCED sharding";
  }
  return "an OpSharding of an unknown kind";
}

/// One OpSharding field of the HloModuleProto (`field` names it), decoded and flattened into
/// `out`; the reason when it is malformed or the runtime cannot lay it out.
std::optional<std::string> read_op_sharding(std::string_view bytes, const char* field,
                                            std::vector<GspmdSharding>& out, bool top_level) {
  try {
    GspmdSharding s = decode_op_sharding(bytes, fmt::format("HloModuleProto.{}", field));
    return flatten_sharding(s, out, top_level);
  } catch (const ParseError& e) {
    return std::string(e.what());
  }
}

/// The HloModuleProto inside the optimized program's bytes, by format.
std::variant<std::string_view, std::string> hlo_module_of(const std::string& format,
                                                          const std::string& bytes) {
  if (format == "hlo") return std::string_view(bytes);
  if (format != "hlo_with_config")
    return fmt::format("the optimized program has format '{}', not 'hlo'", format);
  // HloModuleProtoWithConfig { hlo_module = 1, config = 2 }
  std::optional<std::string_view> module;
  read_fields(bytes, [&](const ProtoField& f) {
    if (f.number == 1 && f.wire_type == 2) module = f.payload;
    return !module;
  });
  if (module) return *module;
  return std::string("the optimized program has no hlo_module");
}

}  // namespace

std::variant<ProgramShardings, std::string> decode_hlo_shardings(std::string_view proto) {
  ProgramShardings out;
  std::string error;
  bool read = read_fields(proto, [&](const ProtoField& f) {
    if (f.number == 12 && f.wire_type == 2) {
      out.has_results = true;
      if (auto why = read_op_sharding(f.payload, "spmd_output_sharding", out.results, true))
        error = "output: " + *why;
    }
    if (f.number == 14 && f.wire_type == 2) {
      out.has_parameters = true;
      if (auto why =
              read_op_sharding(f.payload, "spmd_parameters_shardings", out.parameters, false))
        error = "parameter: " + *why;
    }
    return error.empty();
  });
  if (!read) return std::string("the optimized program is not a valid HloModuleProto");
  if (!error.empty()) return error;
  return out;
}

std::variant<ProgramShape, std::string> executable_program_shape(const PJRT_Api* api,
                                                                 PJRT_LoadedExecutable* loaded,
                                                                 ProgramShardings* shardings,
                                                                 std::string* shardings_error) {
  std::string format, why;
  std::optional<std::string> bytes = optimized_program(api, loaded, format, why);
  if (!bytes) return why;
  auto module = hlo_module_of(format, *bytes);
  if (auto* e = std::get_if<std::string>(&module)) return *e;
  std::string_view m = std::get<std::string_view>(module);
  if (shardings) {
    auto s = decode_hlo_shardings(m);
    if (auto* ok = std::get_if<ProgramShardings>(&s))
      *shardings = std::move(*ok);
    else if (shardings_error)
      *shardings_error = std::get<std::string>(s);
  }
  return decode_hlo_program_shape(m);
}

}  // namespace hhlo::detail
