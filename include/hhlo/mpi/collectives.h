// hhlo::mpi: collectives across processes as builder ops, each one `stablehlo.custom_call
// @hhlo_mpi_<name>` (api_version 4, has_side_effect = true) served by the MPI kernels of
// hhlo/mpi/kernels.h (register_mpi_kernels before compiling). The program is the same on every
// rank: communicators are named by attributes (the world, or groups of world ranks), never by a
// process-specific handle, so a program built on one machine runs on any.
//
// Ordering. XLA:CPU runs a program's thunks as a graph of buffer dependencies (ThunkExecutor):
// two custom calls with no data between them may run in either order or at once, whatever
// has_side_effect says (it only keeps them from being removed, merged or hoisted). Collectives
// issued in different orders on two ranks deadlock or mix data. So each call takes an ordering
// token (a tensor<i8> whose contents are ignored) and returns a new one, as mpi4jax's tokens do,
// and the builders thread it for you: a collective reads the token of the last collective built
// before it in the same block (or in an enclosing block; an op such as stablehlo.while whose
// regions hold collectives orders later ones through one of its results), so execution order is
// build order on every rank. The VJP and JVP rules build their collectives with the same
// builders, so backward passes are ordered too.
//
// Operands and results of the targets (x: any dtype of hhlo::DType; n: the communicator size):
//   hhlo_mpi_allreduce      (x, token) -> (y like x, token)          attrs op, groups, group_size
//                           (y aliases x: output_operand_aliases, run with MPI_IN_PLACE)
//   hhlo_mpi_allgather      (x [d...], token) -> (y [n, d...], token) attrs groups, group_size
//   hhlo_mpi_reduce_scatter (x [n, d...], token) -> (y [d...], token) attrs op, groups, group_size
//   hhlo_mpi_alltoall       (x [n, d...], token) -> (y like x, token) attrs groups, group_size
//   hhlo_mpi_bcast          (x, token) -> (y like x, token)          attrs root, groups, group_size
//   hhlo_mpi_sendrecv       (x, token) -> (y like x, token)          attrs pairs, groups,
//   group_size hhlo_mpi_barrier        (token) -> (token)                       attrs groups,
//   group_size
// `op` is "sum", "prod", "min" or "max"; `groups` the group members flattened (array<i64>, empty
// for the world) and `group_size` their size (0 for the world); `pairs` flattened (source,
// target) communicator ranks.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hhlo/ops/tensor.h"

namespace hhlo::mpi {

/// The reduction of allreduce and reduce_scatter (MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX; for pred
/// MPI_LOR, MPI_LAND, MPI_LAND, MPI_LOR, as XLA's add and multiply of pred; f16 and bf16 through
/// user MPI_Ops computing in f32 and rounding each step).
enum class ReduceOp { sum, prod, min, max };
/// "sum", "prod", "min", "max".
std::string_view reduce_op_name(ReduceOp op);

/// A communicator named in the program: the world (MPI_COMM_WORLD), or a partition of the world's
/// ranks into equal-size groups, each process using the group it belongs to with ranks in the
/// listed order (MPI_Comm_split, color = group index, key = position). Rank-independent: every
/// process builds the same Comm.
struct Comm {
  /// The world. `size` is the number of processes when known (hhlo::mpi::world_size()): the
  /// result shapes of allgather, reduce_scatter and alltoall need it; 0 = unknown. Throws
  /// ShapeError("mpi.comm", "") when negative.
  static Comm world(int64_t size = 0);
  /// Groups of world ranks, e.g. {{0, 1}, {2, 3}}: every rank 0..N-1 exactly once, all groups of
  /// one size (XLA's replica_groups rule). Throws ShapeError("mpi.comm", "") otherwise.
  static Comm groups(const std::vector<std::vector<int64_t>>& groups);
  /// MPI_Comm_split written out for every rank: world rank r goes with color[r] and key[r] (same
  /// length, the world size); ranks of one color form a group ordered by (key, rank). Throws
  /// ShapeError("mpi.comm", "") when the lengths differ, a color is negative (MPI_UNDEFINED: a
  /// rank left out, which no collective here supports) or the groups differ in size.
  static Comm split(const std::vector<int64_t>& color, const std::vector<int64_t>& key);

  /// The number of processes each collective spans (0 when the world's size is unknown).
  int64_t size() const { return group_size > 0 ? group_size : world_size; }
  bool is_world() const { return group_size == 0; }

  /// The groups flattened (empty for the world), their size (0 for the world) and the world size
  /// (0 when unknown). Prefer the factories.
  std::vector<int64_t> members;
  int64_t group_size = 0;
  int64_t world_size = 0;
};

/// MPI_Allreduce: every rank gets the elementwise reduction `op` of x over the communicator. Same
/// shape and dtype as x (every dtype; min and max not for complex). In place: the result aliases
/// x (output_operand_aliases), so the kernel runs MPI_Allreduce(MPI_IN_PLACE) on one buffer; XLA
/// copies x first only when x is read again after the call (an argument that is not donated,
/// a value used twice). Throws ShapeError ("mpi.allreduce", "") for min or max of a complex x.
Tensor allreduce(Tensor x, ReduceOp op = ReduceOp::sum, const Comm& comm = Comm::world(),
                 Loc loc = Loc::current());
/// MPI_Allgather: y[r] = x of communicator rank r; y has shape [n, x.shape...] with n =
/// comm.size(). Throws ShapeError("mpi.allgather", "") when comm.size() is unknown.
Tensor allgather(Tensor x, const Comm& comm, Loc loc = Loc::current());
/// MPI_Reduce_scatter_block: x has shape [n, d...] (n = comm.size()); rank r gets the reduction
/// `op` over ranks of x[r], shape [d...]. Dtypes as allreduce. Throws ShapeError
/// ("mpi.reduce_scatter", "") when comm.size() is unknown, x has rank 0 or x.dim(0) != n, and for
/// min or max of a complex x.
Tensor reduce_scatter(Tensor x, ReduceOp op, const Comm& comm, Loc loc = Loc::current());
/// MPI_Alltoall: x has shape [n, d...]; rank r sends x[s] to rank s and gets y[s] = x[r] of rank
/// s. Same shape as x. Throws ShapeError("mpi.alltoall", "") when comm.size() is unknown, x has
/// rank 0 or x.dim(0) != n.
Tensor alltoall(Tensor x, const Comm& comm, Loc loc = Loc::current());
/// MPI_Bcast: every rank gets x of communicator rank `root`. Same shape and dtype as x. Throws
/// ShapeError("mpi.bcast", "") when root < 0 or root >= comm.size() (when known).
Tensor bcast(Tensor x, int64_t root = 0, const Comm& comm = Comm::world(),
             Loc loc = Loc::current());
/// MPI_Sendrecv over (source, target) pairs of communicator ranks, as stablehlo.collective_permute
/// over processes: rank t gets x of the rank s with (s, t) in `pairs`, zeros when t is no target.
/// Same shape and dtype as x. Throws ShapeError("mpi.sendrecv", "") when a rank is negative or
/// >= comm.size() (when known), or is a source twice or a target twice.
Tensor sendrecv(Tensor x, const std::vector<std::pair<int64_t, int64_t>>& pairs,
                const Comm& comm = Comm::world(), Loc loc = Loc::current());
/// MPI_Sendrecv to rank + shift and from rank - shift (mod n): the ring shift, n = comm.size().
/// Throws ShapeError("mpi.sendrecv", "") when comm.size() is unknown.
Tensor shift(Tensor x, int64_t shift, const Comm& comm, Loc loc = Loc::current());
/// MPI_Barrier in function `f`: no rank goes past it before every rank reached it (in the
/// program's order of collectives).
void barrier(Func& f, const Comm& comm = Comm::world(), Loc loc = Loc::current());

/// The token the next collective built at `f`'s insertion point will read: the token result of the
/// last collective before it (see the file comment), or a new constant when there is none. For
/// threading a token through stablehlo.while by hand.
Tensor ordering_token(Func& f, Loc loc = Loc::current());

/// The custom-call target names this file emits (what mpi_kernel_targets() registers).
std::vector<std::string> builder_targets();

}  // namespace hhlo::mpi
