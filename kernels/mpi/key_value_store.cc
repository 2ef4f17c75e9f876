// hhlo::mpi::MpiKeyValueStore: a map on world rank 0 behind a server thread, requests and replies
// point to point on a communicator of the store's own. A request is one MPI_BYTE message to rank
// 0 with tag kRequest: [kind (1 byte)][reply tag (int32)][key size (uint32)][key][value]; the
// reply (tag = the request's reply tag, unique among the requests in flight of one process) is
// [found (1 byte)][value] for a lookup and [1] for a set; kDone tells rank 0 a rank is finished.
#include "hhlo/mpi/key_value_store.h"

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "hhlo/mpi/kernels.h"

namespace hhlo::mpi {
namespace {

constexpr int kRequest = 1, kDone = 2;
constexpr char kSet = 's', kLookup = 'g';

std::string mpi_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

void check(int rc, const char* call, std::string_view key) {
  if (rc != MPI_SUCCESS)
    throw Error("hhlo::mpi::MpiKeyValueStore(\"" + std::string(key) + "\"): " + call +
                " failed: " + mpi_text(rc));
}

void check_key(std::string_view key) {
  if (key.empty()) throw Error("hhlo::mpi::MpiKeyValueStore: the key is empty");
}

/// Receives the message `m` matched by MPI_Mprobe / MPI_Improbe (`st` its status).
std::vector<char> receive(MPI_Message m, const MPI_Status& st, std::string_view key) {
  int n = 0;
  MPI_Get_count(&st, MPI_BYTE, &n);
  std::vector<char> buf(static_cast<size_t>(n));
  check(MPI_Mrecv(buf.data(), n, MPI_BYTE, &m, MPI_STATUS_IGNORE), "MPI_Mrecv", key);
  return buf;
}

/// Receives one message of unknown size from `source` with `tag` (blocking; matched probe, so
/// threads receiving at once never take each other's message).
std::vector<char> receive(MPI_Comm comm, int source, int tag, std::string_view key) {
  MPI_Message m;
  MPI_Status st;
  check(MPI_Mprobe(source, tag, comm, &m, &st), "MPI_Mprobe", key);
  return receive(m, st, key);
}

}  // namespace

struct MpiKeyValueStore::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  std::atomic<unsigned> next_tag{0};
  // Rank 0: the values and the server.
  std::mutex mu;
  std::map<std::string, std::string, std::less<>> values;
  std::thread server;

  /// Rank 0's loop: answers requests until every rank sent kDone.
  void serve() {
    int done = 0;
    while (done < size) {
      int flag = 0;
      MPI_Message m;
      MPI_Status st;
      MPI_Improbe(MPI_ANY_SOURCE, kDone, comm, &flag, &m, &st);
      if (flag) {
        receive(m, st, "");
        ++done;
        continue;
      }
      // Only the two tags of requests: rank 0's own replies (tags >= 100) are its clients'.
      MPI_Improbe(MPI_ANY_SOURCE, kRequest, comm, &flag, &m, &st);
      if (!flag) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      std::vector<char> msg = receive(m, st, "");
      if (msg.size() < 9) continue;  // not ours: nothing sends these
      int32_t reply_tag = 0;
      uint32_t key_size = 0;
      std::memcpy(&reply_tag, msg.data() + 1, 4);
      std::memcpy(&key_size, msg.data() + 5, 4);
      std::string key(msg.data() + 9, key_size);
      std::string reply;
      {
        std::lock_guard lock(mu);
        if (msg[0] == kSet) {
          values[key] = std::string(msg.data() + 9 + key_size, msg.size() - 9 - key_size);
          reply = "\1";
        } else if (auto it = values.find(key); it != values.end()) {
          reply = "\1" + it->second;
        } else {
          reply = std::string(1, '\0');
        }
      }
      MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_BYTE, st.MPI_SOURCE, reply_tag,
               comm);
    }
  }

  /// Sends one request to rank 0 and returns the reply.
  std::vector<char> request(char kind, std::string_view key, std::string_view value) {
    // Tags 100 .. 30099 (MPI guarantees tags up to 32767), unique among a process's requests
    // in flight unless 30,000 are.
    const int tag = 100 + static_cast<int>(next_tag.fetch_add(1) % 30000);
    std::string msg(1, kind);
    int32_t t = tag;
    uint32_t k = static_cast<uint32_t>(key.size());
    msg.append(reinterpret_cast<const char*>(&t), 4);
    msg.append(reinterpret_cast<const char*>(&k), 4);
    msg.append(key);
    msg.append(value);
    check(MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_BYTE, 0, kRequest, comm),
          "MPI_Send", key);
    return receive(comm, 0, tag, key);
  }
};

MpiKeyValueStore::MpiKeyValueStore() : impl_(std::make_unique<Impl>()) {
  initialize();
  if (thread_level() < MPI_THREAD_MULTIPLE)
    throw Error("hhlo::mpi::MpiKeyValueStore: MPI gave thread level " +
                std::to_string(thread_level()) +
                ", the store needs MPI_THREAD_MULTIPLE (3): the plugin calls it from its threads");
  check(MPI_Comm_dup(MPI_COMM_WORLD, &impl_->comm), "MPI_Comm_dup", "");
  MPI_Comm_set_errhandler(impl_->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(impl_->comm, &impl_->rank);
  MPI_Comm_size(impl_->comm, &impl_->size);
  if (impl_->rank == 0)
    impl_->server = std::thread([this] {
      try {
        impl_->serve();
      } catch (const std::exception& e) {  // an MPI failure: the job cannot rendezvous
        std::fprintf(stderr, "hhlo::mpi::MpiKeyValueStore: the server on rank 0 stopped: %s\n",
                     e.what());
      }
    });
}

MpiKeyValueStore::~MpiKeyValueStore() {
  char none = 0;
  MPI_Send(&none, 0, MPI_BYTE, 0, kDone, impl_->comm);
  if (impl_->server.joinable()) impl_->server.join();
}

void MpiKeyValueStore::set(std::string_view key, std::string_view value) {
  check_key(key);
  impl_->request(kSet, key, value);
}

std::optional<std::string> MpiKeyValueStore::try_get(std::string_view key) {
  check_key(key);
  std::vector<char> r = impl_->request(kLookup, key, {});
  if (r.empty() || r[0] == 0) return std::nullopt;
  return std::string(r.data() + 1, r.size() - 1);
}

std::string MpiKeyValueStore::get(std::string_view key, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (std::optional<std::string> v = try_get(key)) return *v;
    if (std::chrono::steady_clock::now() >= deadline)
      throw KeyValueTimeout(std::string(key), timeout,
                            "hhlo::mpi::MpiKeyValueStore (served by world rank 0)");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

ClientCreateOptions multi_process_client_options(std::vector<ClientOption> options) {
  ClientCreateOptions o;
  o.options = std::move(options);
  o.kv_store = std::make_shared<MpiKeyValueStore>();
  o.node_id = world_rank();
  o.num_nodes = world_size();
  return o;
}

}  // namespace hhlo::mpi
