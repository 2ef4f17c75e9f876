// The properties of the plain (non-VHLO) ops read here: the attributes each op's properties hold
// in MLIR bytecode 5 and later, in the order ODS writes them (mlir-tblgen's OpDefinitionsGen,
// genPropertiesSupportForBytecode: every attribute of the op sorted by name, a required one as an
// attribute index, an optional or default-valued one as MLIR's writeOptionalAttribute).
//
// Rows come from StableHLO's StablehloOps.td and ChloOps.td (StableHLO 1.20.0, commit 3c9301c)
// and MLIR's func dialect, checked against the op definitions of the two jaxlib releases the tests
// generate with: JAX 0.10.2 (StableHLO 1.17.0) and JAX 0.12.1 (StableHLO 1.25.3), whose ops differ
// in a few attributes (custom_call's result_tilings, collective_broadcast's has_dynamic_root,
// chlo.top_k's is_stable, func.func's dlti): an op with two layouts has two rows, told apart by
// how many attributes the properties hold. `name?` is optional, `name?=TEXT` optional with the
// ODS default TEXT that StableHLO's printer elides (DEFAULT: result_accuracy's default).
// tests/ir/bytecode_plain_test.cc checks every row against jaxlib's own op definitions.
#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bytecode_internal.h"

namespace hhlo::bc {
namespace {

struct OpProps {
  std::string_view op;
  std::string_view attrs;  // space-separated, sorted
};

constexpr OpProps kOps[] = {
    {"chlo.broadcast_add", "broadcast_dimensions?"},
    {"chlo.broadcast_and", "broadcast_dimensions?"},
    {"chlo.broadcast_atan2", "broadcast_dimensions?"},
    {"chlo.broadcast_compare", "broadcast_dimensions? compare_type? comparison_direction"},
    {"chlo.broadcast_complex", "broadcast_dimensions?"},
    {"chlo.broadcast_divide", "broadcast_dimensions?"},
    {"chlo.broadcast_maximum", "broadcast_dimensions?"},
    {"chlo.broadcast_minimum", "broadcast_dimensions?"},
    {"chlo.broadcast_multiply", "broadcast_dimensions?"},
    {"chlo.broadcast_next_after", "broadcast_dimensions?"},
    {"chlo.broadcast_or", "broadcast_dimensions?"},
    {"chlo.broadcast_polygamma", "broadcast_dimensions?"},
    {"chlo.broadcast_power", "broadcast_dimensions?"},
    {"chlo.broadcast_remainder", "broadcast_dimensions?"},
    {"chlo.broadcast_shift_left", "broadcast_dimensions?"},
    {"chlo.broadcast_shift_right_arithmetic", "broadcast_dimensions?"},
    {"chlo.broadcast_shift_right_logical", "broadcast_dimensions?"},
    {"chlo.broadcast_subtract", "broadcast_dimensions?"},
    {"chlo.broadcast_xor", "broadcast_dimensions?"},
    {"chlo.broadcast_zeta", "broadcast_dimensions?"},
    {"chlo.constant", "value"},
    {"chlo.constant_like", "value"},
    {"chlo.ragged_dot", "precision_config? ragged_dot_dimension_numbers"},
    {"chlo.top_k", "is_stable?=true k"},
    {"chlo.top_k", "k"},
    {"func.call_indirect", "arg_attrs? res_attrs?"},
    {"func.constant", "value"},
    {"func.call", "arg_attrs? callee no_inline? res_attrs?"},
    // MLIR writes func.func's dlti (added after the others) last, so that older readers read
    // the rest as before.
    {"func.func", "arg_attrs? function_type no_inline? res_attrs? sym_name sym_visibility? dlti?"},
    {"func.func", "arg_attrs? function_type no_inline? res_attrs? sym_name sym_visibility?"},
    {"stablehlo.all_gather",
     "all_gather_dim channel_handle? replica_groups use_global_device_ids?"},
    {"stablehlo.all_reduce", "channel_handle? replica_groups use_global_device_ids?"},
    {"stablehlo.all_to_all",
     "channel_handle? concat_dimension replica_groups split_count split_dimension"},
    {"stablehlo.batch_norm_grad", "epsilon feature_index"},
    {"stablehlo.batch_norm_inference", "epsilon feature_index"},
    {"stablehlo.batch_norm_training", "epsilon feature_index"},
    {"stablehlo.broadcast", "broadcast_sizes"},
    {"stablehlo.broadcast_in_dim", "broadcast_dimensions"},
    {"stablehlo.cbrt", "result_accuracy?=DEFAULT"},
    {"stablehlo.cholesky", "lower?=false"},
    {"stablehlo.collective_broadcast", "channel_handle? has_dynamic_root? replica_groups"},
    {"stablehlo.collective_broadcast", "channel_handle? replica_groups"},
    {"stablehlo.collective_permute", "channel_handle? source_target_pairs"},
    {"stablehlo.collective_reduce",
     "channel_handle? has_dynamic_root? replica_groups use_global_device_ids?"},
    {"stablehlo.compare", "compare_type? comparison_direction"},
    {"stablehlo.composite", "composite_attributes?={} decomposition name version?=0"},
    {"stablehlo.concatenate", "dimension"},
    {"stablehlo.constant", "value"},
    {"stablehlo.convolution",
     "batch_group_count dimension_numbers feature_group_count lhs_dilation? padding? "
     "precision_config? rhs_dilation? window_reversal? window_strides?"},
    {"stablehlo.cosine", "result_accuracy?=DEFAULT"},
    {"stablehlo.custom_call",
     "api_version?=1 backend_config? call_target_name called_computations?=[] "
     "has_side_effect?=false operand_layouts? output_operand_aliases?=[] result_layouts?"},
    {"stablehlo.custom_call",
     "api_version?=1 backend_config? call_target_name called_computations?=[] "
     "has_side_effect?=false operand_layouts? output_operand_aliases?=[] result_layouts? "
     "result_tilings?"},
    {"stablehlo.dot", "precision_config?"},
    {"stablehlo.dot_general", "algorithm? dot_dimension_numbers precision_config?"},
    {"stablehlo.dynamic_broadcast_in_dim",
     "broadcast_dimensions known_expanding_dimensions? known_nonexpanding_dimensions?"},
    {"stablehlo.dynamic_conv",
     "batch_group_count dimension_numbers feature_group_count lhs_dilation? precision_config? "
     "rhs_dilation? window_reversal? window_strides?"},
    {"stablehlo.dynamic_gather", "dimension_numbers indices_are_sorted?"},
    {"stablehlo.dynamic_iota", "iota_dimension"},
    {"stablehlo.dynamic_slice", "slice_sizes"},
    {"stablehlo.einsum", "einsum_config"},
    {"stablehlo.exp2", "result_accuracy?=DEFAULT"},
    {"stablehlo.exponential", "result_accuracy?=DEFAULT"},
    {"stablehlo.exponential_minus_one", "result_accuracy?=DEFAULT"},
    {"stablehlo.fft", "fft_length fft_type"},
    {"stablehlo.gather", "dimension_numbers indices_are_sorted? slice_sizes"},
    {"stablehlo.get_dimension_size", "dimension"},
    {"stablehlo.get_tuple_element", "index"},
    {"stablehlo.infeed", "infeed_config? layout?"},
    {"stablehlo.iota", "iota_dimension"},
    {"stablehlo.log", "result_accuracy?=DEFAULT"},
    {"stablehlo.log2", "result_accuracy?=DEFAULT"},
    {"stablehlo.log_plus_one", "result_accuracy?=DEFAULT"},
    {"stablehlo.logistic", "result_accuracy?=DEFAULT"},
    {"stablehlo.map", "dimensions"},
    {"stablehlo.outfeed", "outfeed_config?"},
    {"stablehlo.pad", "edge_padding_high edge_padding_low interior_padding"},
    {"stablehlo.recv", "channel_handle is_host_transfer? source_target_pairs?"},
    {"stablehlo.reduce", "dimensions"},
    {"stablehlo.reduce_precision", "exponent_bits mantissa_bits"},
    {"stablehlo.reduce_scatter",
     "channel_handle? replica_groups scatter_dimension use_global_device_ids?"},
    {"stablehlo.reduce_window",
     "base_dilations? padding? window_dilations? window_dimensions window_strides?"},
    {"stablehlo.reverse", "dimensions"},
    {"stablehlo.rng", "rng_distribution"},
    {"stablehlo.rng_bit_generator", "rng_algorithm"},
    {"stablehlo.rsqrt", "result_accuracy?=DEFAULT"},
    {"stablehlo.scatter", "indices_are_sorted? scatter_dimension_numbers unique_indices?"},
    {"stablehlo.select_and_scatter", "padding? window_dimensions? window_strides?"},
    {"stablehlo.send", "channel_handle is_host_transfer? source_target_pairs?"},
    {"stablehlo.set_dimension_size", "dimension"},
    {"stablehlo.sine", "result_accuracy?=DEFAULT"},
    {"stablehlo.slice", "limit_indices start_indices strides"},
    {"stablehlo.sort", "dimension? is_stable?"},
    {"stablehlo.sqrt", "result_accuracy?=DEFAULT"},
    {"stablehlo.tan", "result_accuracy?=DEFAULT"},
    {"stablehlo.tanh", "result_accuracy?=DEFAULT"},
    {"stablehlo.torch_index_select", "batch_dims dim"},
    {"stablehlo.transpose", "permutation"},
    {"stablehlo.triangular_solve", "left_side lower transpose_a unit_diagonal"},
    {"stablehlo.unary_einsum", "einsum_config"},
};

std::vector<PropAttr> parse_row(std::string_view s) {
  std::vector<PropAttr> out;
  while (!s.empty()) {
    size_t sp = s.find(' ');
    std::string_view w = s.substr(0, sp);
    s = sp == std::string_view::npos ? std::string_view{} : s.substr(sp + 1);
    PropAttr a;
    size_t q = w.find('?');
    a.name = w.substr(0, q);
    a.optional = q != std::string_view::npos;
    if (a.optional && q + 1 < w.size() && w[q + 1] == '=') a.default_text = w.substr(q + 2);
    out.push_back(a);
  }
  return out;
}

using Table = std::unordered_map<std::string_view, std::vector<std::vector<PropAttr>>>;

const Table& table() {
  static const Table t = [] {
    Table t;
    for (const OpProps& o : kOps) t[o.op].push_back(parse_row(o.attrs));
    return t;
  }();
  return t;
}

}  // namespace

const std::vector<PropAttr>* plain_prop_attrs(std::string_view full, size_t count) {
  auto it = table().find(full);
  if (it == table().end()) return nullptr;
  for (const std::vector<PropAttr>& layout : it->second)
    if (layout.size() == count) return &layout;
  return nullptr;
}

const std::vector<PropAttr>* plain_prop_any(std::string_view full) {
  auto it = table().find(full);
  return it == table().end() ? nullptr : &it->second.front();
}

std::vector<size_t> plain_prop_counts(std::string_view full) {
  std::vector<size_t> out;
  auto it = table().find(full);
  if (it != table().end())
    for (const std::vector<PropAttr>& layout : it->second) out.push_back(layout.size());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string_view, const std::vector<PropAttr>*>> plain_prop_table() {
  std::vector<std::pair<std::string_view, const std::vector<PropAttr>*>> out;
  for (const OpProps& o : kOps) {
    const std::vector<std::vector<PropAttr>>& layouts = table().at(o.op);
    size_t k = 0;  // the row's place among the op's rows
    for (const OpProps* p = kOps; p != &o; ++p) k += p->op == o.op;
    out.emplace_back(o.op, &layouts[k]);
  }
  return out;
}

}  // namespace hhlo::bc
