// hhlo::mpi::MpiKeyValueStore (issue 24, item 5: the store the CUDA plugin's multi-host client
// rendezvouses through, served over MPI), run under `mpirun -np 2` and `-np 4` with the rest of
// hhlo_mpi_tests: a value set on one rank is seen by a blocking get on every other, values are
// bytes, an absent key times out within its timeout, and the client options name this rank.
// The GPU run of a multi-process CUDA client is in tests/gpu/run_gpu_checks.sh.
#define OMPI_SKIP_MPICXX 1
#include "hhlo/mpi/key_value_store.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "hhlo/mpi/kernels.h"

namespace hhlo {
namespace {

using std::chrono::milliseconds;

TEST(MpiKeyValueStore, ASetOnOneRankIsSeenByABlockingGetOnEveryOther) {
  mpi::MpiKeyValueStore kv;  // collective: every rank makes one (and ends it)
  const int n = mpi::world_size(), r = mpi::world_rank();
  const std::string bytes("v\0\xff late", 8);
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == n - 1) {  // the others are already waiting in get()
    std::this_thread::sleep_for(milliseconds(300));
    kv.set("late/value", bytes);
  }
  EXPECT_EQ(kv.get("late/value", milliseconds(20000)), bytes);
  // Every rank sets its own key; every rank reads every key.
  kv.set("rank/" + std::to_string(r), "from " + std::to_string(r));
  for (int q = 0; q < n; ++q)
    EXPECT_EQ(kv.get("rank/" + std::to_string(q), milliseconds(20000)),
              "from " + std::to_string(q));
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(MpiKeyValueStore, SetReplacesAndTryGetNeverWaits) {
  mpi::MpiKeyValueStore kv;  // collective: every rank makes one (and ends it)
  const int r = mpi::world_rank();
  if (r == 0) kv.set("replaced", "old");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(kv.try_get("replaced"), std::optional<std::string>("old"));
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) kv.set("replaced", "new");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(kv.try_get("replaced"), std::optional<std::string>("new"));
  EXPECT_EQ(kv.try_get("never/set"), std::nullopt);
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(MpiKeyValueStore, AnAbsentKeyTimesOutWithinItsTimeout) {
  mpi::MpiKeyValueStore kv;  // collective: every rank makes one (and ends it)
  auto t0 = std::chrono::steady_clock::now();
  try {
    kv.get("never/set/" + std::to_string(mpi::world_rank()), milliseconds(200));
    ADD_FAILURE() << "no timeout";
  } catch (const KeyValueTimeout& e) {
    EXPECT_EQ(e.timeout(), milliseconds(200));
    EXPECT_NE(std::string(e.what()).find("never/set/"), std::string::npos) << e.what();
  }
  auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, milliseconds(200));
  EXPECT_LT(waited, milliseconds(5000));
  EXPECT_THROW(kv.set("", "x"), Error);
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(MpiKeyValueStore, ManyThreadsOfOneRankAtOnce) {
  mpi::MpiKeyValueStore kv;  // collective: every rank makes one (and ends it)
  // The plugin calls the store from several threads: replies must reach the thread that asked.
  const int r = mpi::world_rank();
  std::vector<std::thread> threads;
  std::vector<std::string> got(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&kv, &got, r, t] {
      std::string k = "thread/" + std::to_string(r) + "/" + std::to_string(t);
      kv.set(k, std::to_string(t * 7));
      got[size_t(t)] = kv.get(k, milliseconds(20000));
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(got[size_t(t)], std::to_string(t * 7));
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(MpiKeyValueStore, ClientOptionsNameThisRankAmongTheProcesses) {
  ClientCreateOptions o = mpi::multi_process_client_options({{"visible_devices", int64_t{0}}});
  EXPECT_EQ(o.node_id, mpi::world_rank());
  EXPECT_EQ(o.num_nodes, mpi::world_size());
  ASSERT_NE(o.kv_store, nullptr);
  ASSERT_EQ(o.options.size(), 1u);
  // The store of the options works like any other.
  o.kv_store->set("options/" + std::to_string(mpi::world_rank()), "ok");
  EXPECT_EQ(o.kv_store->get("options/0", milliseconds(20000)), "ok");
  MPI_Barrier(MPI_COMM_WORLD);  // every rank read before any destroys its store (collective)
}

}  // namespace
}  // namespace hhlo
