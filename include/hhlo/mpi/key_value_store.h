// The key-value store a multi-process PJRT client rendezvouses through (hhlo/runtime/
// key_value_store.h), served over MPI (kernels/mpi, `hhlo_mpi`), and the client options that make
// the processes of an `mpirun` job one multi-host client: with the CUDA plugin, `mpirun -np 2`
// over two GPU hosts gives one global device list and XLA's NCCL collectives across them
// (docs/distributed.md, "GPU hosts"). No shared directory or extra service is needed: the job's
// own MPI carries the store.
//
//   hhlo::Client c = hhlo::Client::create("cuda", hhlo::mpi::multi_process_client_options());
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hhlo/runtime/client.h"
#include "hhlo/runtime/key_value_store.h"

namespace hhlo::mpi {

/// A KeyValueStore whose values live on world rank 0: a thread there serves the requests of
/// every rank (its own included), sent point to point on a duplicate of MPI_COMM_WORLD of the
/// store's own, so they never match other traffic. set() returns once rank 0 holds the value, so
/// a get() on any rank that starts after it sees it; get() asks again every millisecond until the
/// key is set or the timeout passes. Values are opaque bytes. Thread-safe (MPI_THREAD_MULTIPLE).
class MpiKeyValueStore final : public KeyValueStore {
 public:
  /// Collective over the world: every rank constructs one, in the same order as any other
  /// collective creation (MPI_Comm_dup). Initializes MPI when nobody did (hhlo::mpi::initialize).
  /// Throws hhlo::Error when MPI cannot be initialized or gives less than MPI_THREAD_MULTIPLE
  /// (the plugin calls the store from its own threads).
  MpiKeyValueStore();
  /// Collective too: each rank tells rank 0 it is done, and rank 0 stops serving once every rank
  /// has (so destroy it before MPI is finalized, and on every rank).
  ~MpiKeyValueStore() override;
  MpiKeyValueStore(const MpiKeyValueStore&) = delete;
  MpiKeyValueStore& operator=(const MpiKeyValueStore&) = delete;

  /// Throws hhlo::Error for an empty key or an MPI failure (naming the key).
  void set(std::string_view key, std::string_view value) override;
  /// Throws KeyValueTimeout naming the key and the timeout; hhlo::Error for an empty key or an
  /// MPI failure.
  std::string get(std::string_view key, std::chrono::milliseconds timeout) override;
  /// Throws hhlo::Error for an empty key or an MPI failure.
  std::optional<std::string> try_get(std::string_view key) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Client options for one process of the job as a node of a multi-process client: node_id = the
/// world rank, num_nodes = the world size, kv_store = a new MpiKeyValueStore (collective: call it
/// on every rank), `options` as the plugin options. For the CUDA plugin (the CPU plugin ignores
/// node_id and num_nodes: docs/facts.md, "Multi-process"). Throws what MpiKeyValueStore throws.
ClientCreateOptions multi_process_client_options(std::vector<ClientOption> options = {});

}  // namespace hhlo::mpi
