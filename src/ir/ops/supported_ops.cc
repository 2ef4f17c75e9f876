// The list of ops the builder emits, for coverage listings.
#include <algorithm>

#include "hhlo/ir/ops.h"

namespace hhlo {

std::vector<std::string_view> supported_ops() {
  static const std::vector<std::string_view> ops = [] {
    std::vector<std::string_view> v = {"stablehlo.all_gather",
                                       "stablehlo.all_reduce",
                                       "stablehlo.all_to_all",
                                       "stablehlo.batch_norm_grad",
                                       "stablehlo.batch_norm_inference",
                                       "stablehlo.batch_norm_training",
                                       "stablehlo.bitcast_convert",
                                       "stablehlo.broadcast_in_dim",
                                       "stablehlo.case",
                                       "stablehlo.cholesky",
                                       "stablehlo.clamp",
                                       "stablehlo.compare",
                                       "stablehlo.composite",
                                       "stablehlo.collective_broadcast",
                                       "stablehlo.collective_permute",
                                       "stablehlo.concatenate",
                                       "stablehlo.constant",
                                       "stablehlo.convert",
                                       "stablehlo.convolution",
                                       "stablehlo.custom_call",
                                       "stablehlo.dot_general",
                                       "stablehlo.dynamic_slice",
                                       "stablehlo.dynamic_update_slice",
                                       "stablehlo.fft",
                                       "stablehlo.gather",
                                       "stablehlo.get_dimension_size",
                                       "stablehlo.if",
                                       "stablehlo.iota",
                                       "stablehlo.map",
                                       "stablehlo.optimization_barrier",
                                       "stablehlo.pad",
                                       "stablehlo.partition_id",
                                       "stablehlo.reduce",
                                       "stablehlo.reduce_precision",
                                       "stablehlo.reduce_scatter",
                                       "stablehlo.reduce_window",
                                       "stablehlo.replica_id",
                                       "stablehlo.reshape",
                                       "stablehlo.return",
                                       "stablehlo.reverse",
                                       "stablehlo.rng",
                                       "stablehlo.rng_bit_generator",
                                       "stablehlo.scatter",
                                       "stablehlo.select",
                                       "stablehlo.select_and_scatter",
                                       "stablehlo.slice",
                                       "stablehlo.sort",
                                       "stablehlo.transpose",
                                       "stablehlo.triangular_solve",
                                       "stablehlo.while",
                                       "func.call",
                                       "func.return"};
    static std::vector<std::string> names;
    for (int arity : {1, 2})
      for (std::string_view n : elementwise_op_names(arity))
        names.push_back("stablehlo." + std::string(n));
    for (const auto& n : names) v.push_back(n);
    std::sort(v.begin(), v.end());
    return v;
  }();
  return ops;
}

}  // namespace hhlo
