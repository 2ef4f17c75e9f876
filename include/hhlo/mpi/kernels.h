// MPI collectives across processes as typed XLA FFI custom calls (kernels/mpi, `hhlo_mpi`), the
// way mpi4jax serves JAX: a program built with hhlo/mpi/collectives.h calls
// `stablehlo.custom_call @hhlo_mpi_<collective>`, and these handlers run the matching MPI function
// (Open MPI from Debian) on the CPU plugin's thread when XLA reaches the call. Launch one process
// per rank (`mpirun -np 4 prog`); each runs the same program.
//
//  - MPI is initialized lazily (MPI_Init_thread, MPI_THREAD_MULTIPLE requested) by the first call
//    here or the first collective executed, unless the program did it itself; when this library
//    initialized MPI it finalizes it at exit (std::atexit), never inside a handler.
//  - The collectives run on a duplicate of MPI_COMM_WORLD (MPI_Comm_dup, error handler
//    MPI_ERRORS_RETURN), or on communicators split from it for the groups a program names
//    (MPI_Comm_split, cached per group list): user MPI traffic on MPI_COMM_WORLD never matches
//    ours. Creating them is collective: every rank must run the same programs in the same order.
//  - Every MPI call of this library holds one process-wide mutex, so two executions of one process
//    never use a communicator concurrently (MPI forbids it).
//  - A handler never lets an exception escape; an MPI failure or an inconsistent shape is an
//    execution error (hhlo::PjrtError) naming the target and MPI's message.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "hhlo/runtime/client.h"
#include "hhlo/runtime/plugin.h"

namespace hhlo {

/// The custom-call targets register_mpi_kernels registers: hhlo_mpi_allreduce,
/// hhlo_mpi_allgather, hhlo_mpi_reduce_scatter, hhlo_mpi_alltoall, hhlo_mpi_bcast,
/// hhlo_mpi_sendrecv, hhlo_mpi_barrier. Operands, results and attributes: hhlo/mpi/collectives.h.
std::vector<std::string> mpi_kernel_targets();

/// Initializes MPI (hhlo::mpi::initialize) and registers every target of mpi_kernel_targets()
/// with `plugin` for platform "Host" (register_custom_call). Idempotent. Collective: call it on
/// every rank. Throws hhlo::Error when MPI cannot be initialized, and what register_custom_call
/// throws (hhlo::PluginError when the plugin has no FFI extension).
void register_mpi_kernels(const Plugin& plugin);
/// Same for the plugin of `client`.
void register_mpi_kernels(const Client& client);

namespace mpi {

/// Initializes MPI if nobody did (MPI_Init_thread requesting MPI_THREAD_MULTIPLE; finalized at
/// exit) and duplicates MPI_COMM_WORLD for the collectives (MPI_Comm_dup: collective over the
/// world). Idempotent. Throws hhlo::Error with MPI's message when MPI fails or was finalized.
void initialize();
/// This process's rank in MPI_COMM_WORLD (MPI_Comm_rank), initializing MPI first if needed
/// (MPI_Init_thread only: not collective). A process started without mpirun is rank 0 of 1
/// (MPI's singleton start). Throws hhlo::Error as initialize.
int world_rank();
/// The number of processes in MPI_COMM_WORLD (MPI_Comm_size); initializes as world_rank.
int world_size();
/// Checked mode (off by default): before each collective, every rank's signature of it (target,
/// element type, operand dims, attributes, communicator) is gathered (16 int64 sent to world rank
/// 0 and every signature sent back, on a communicator of its own, which matches whatever call
/// each rank is at) and compared; ranks that disagree all fail the execution with the same error
/// naming every rank's signature, instead of MPI mixing data or waiting forever. The gather is
/// bounded by timeout(): when a rank has not arrived by then (it hangs, is slower than the
/// timeout, or runs other code), rank 0 prints "hhlo::mpi: <target>: rank R did not reach this
/// collective within T s ..." on stderr and ends the job with MPI_Abort (the other ranks name
/// rank 0 after twice the timeout when rank 0 is the one missing). Once every rank arrived, the
/// collective's MPI call is bounded by timeout() too: a watchdog thread ends the job (MPI_Abort)
/// when the call is still in flight then, the communicator's first rank (rank 0 for the world)
/// printing "hhlo::mpi: <target>: this collective did not complete within T s ...; rank R did not
/// answer since: stopped ..." after up to 1 s more (R: the ranks that did not report to it that
/// they are still inside), another rank naming the first one after twice the timeout when that
/// one is stopped or hung (docs/distributed.md, "A dead rank"). Costs two small messages per rank
/// per collective, and about 60 ns to arm and disarm the watchdog. Set it the same way on every
/// rank, before the executions it should cover.
void set_checked(bool on);
/// Whether checked mode is on.
bool checked();
/// How long checked mode waits for every rank at a collective, and for the collective's MPI call
/// (default 120 s; see set_checked). Throws hhlo::Error when `t` is not positive; one past 10^12
/// ms (about 31.7 years, no bound in practice) is taken as 10^12 ms, so no deadline overflows the
/// clock, and with 10^12 ms no watchdog is armed. Set it the same way on every rank.
void set_timeout(std::chrono::milliseconds t);
/// The timeout of checked mode.
std::chrono::milliseconds timeout();
/// How many collectives this process ran in place so far: XLA handed the kernel one buffer as
/// operand and result (allreduce asks for it with output_operand_aliases, hhlo/mpi/collectives.h),
/// and the MPI call got MPI_IN_PLACE. For tests and benchmarks; no MPI call, never throws.
int64_t in_place_collectives();
/// The thread support level MPI gave (MPI_THREAD_SINGLE 0 .. MPI_THREAD_MULTIPLE 3); initializes
/// as world_rank.
int thread_level();

}  // namespace mpi
}  // namespace hhlo
