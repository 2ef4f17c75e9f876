// Internals of the jax.export artifact reader (hhlo/program/exported.h): the conversions from
// the flatbuffer tables flatc generates from src/program/artifacts/exported.fbs to our types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exported_generated.h"
#include "hhlo/program/exported.h"

namespace hhlo::program_detail {

namespace wire = hhlo::program::wire;

/// Throws the reader's ParseError: source "NAME (jax.export artifact)", line 0, column 0.
[[noreturn]] void fail(const std::string& source, const std::string& expected,
                       const std::string& found);

/// The string (empty for an absent one).
inline std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

/// One aval (serialization.fbs AbstractValue). Throws ParseError for an unknown element type,
/// aval kind or memory space, or an absent table.
ExportedAval read_aval(const wire::Aval* a, const std::string& source);

/// The tree (serialization.fbs PyTreeDef). Throws ParseError for an unknown kind or a dict whose
/// keys are not one per child.
ExportedTree read_tree(const wire::PyTree* t, const std::string& source);

/// JAX's names of the leaves of an input tree ((args, kwargs): "args[0]['w']", "kwargs['s']");
/// a tree of any other form is named as an output below "args".
std::vector<std::string> input_names(const ExportedTree& in_tree);
/// JAX's names of the leaves of an output tree ("result", "result[0]['h']").
std::vector<std::string> output_names(const ExportedTree& out_tree);

/// The mesh of a NamedSharding (serialization.fbs AbstractMesh) and its axis types.
struct WireMesh {
  Mesh mesh;
  std::vector<std::string> axis_types;
  std::string device_kind, device_platform;
};
WireMesh read_mesh(const wire::AbstractMesh* m, const std::string& source);

/// A NamedSharding for an aval of rank `rank`, with its mesh (`mesh`, from
/// unique_abstract_meshes or the sharding's own). Throws ParseError for a spec longer than the
/// rank or an axis not in the mesh.
ExportedSharding read_named_sharding(const wire::NamedSharding* s, const WireMesh& mesh,
                                     size_t rank, const std::string& source);

}  // namespace hhlo::program_detail
