// Typed XLA FFI handlers for the MPI collectives of hhlo/mpi/collectives.h (targets
// hhlo_mpi_*), on Open MPI: lazy MPI_Init_thread, a duplicate of MPI_COMM_WORLD, communicators
// split per group list and cached, one mutex around every MPI call. Each handler decodes its
// operands with ffi::AnyBuffer (every dtype through one handler), checks the shapes against the
// communicator, calls the MPI function named in its comment, and writes 0 to its token result.
// Nothing throws into XLA (hhlo::kernel::guarded); failures are INVALID_ARGUMENT (shapes,
// attributes, dtypes) or INTERNAL (MPI's error string) naming the target.
#include "hhlo/mpi/kernels.h"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "collective_bound.h"
#include "hhlo/core/dtype.h"
#include "hhlo/core/error.h"
#include "hhlo/runtime/custom_call.h"
#include "hhlo/runtime/custom_call_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace hhlo::mpi {
namespace {

using hhlo::kernel::guarded;

// ---- Process-wide MPI state -------------------------------------------------------------------

std::mutex& mpi_mutex() {
  static std::mutex mu;
  return mu;
}

struct State {
  bool initialized_here = false;
  int thread_level = -1;
  MPI_Comm world = MPI_COMM_NULL;  // our duplicate of MPI_COMM_WORLD
  MPI_Comm check = MPI_COMM_NULL;  // another one, for checked mode's signature exchange
  std::map<std::vector<int64_t>, MPI_Comm> groups;
  std::map<MPI_Comm, std::vector<int>> world_ranks;  // of each communicator's members, in order
  MPI_Op f16_ops[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  MPI_Op bf16_ops[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
};

State& state() {
  static State s;
  return s;
}

std::string mpi_message(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(len));
}

void finalize_at_exit() {
  std::lock_guard<std::mutex> lock(mpi_mutex());
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

/// MPI_Init_thread unless done; the mutex is held. Empty on success, else why not.
std::string init_locked() {
  State& s = state();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return "MPI was already finalized (MPI_Finalized); it cannot be initialized again";
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS) return "MPI_Init_thread failed: " + mpi_message(rc);
    s.initialized_here = true;
    s.thread_level = provided;
    std::atexit(finalize_at_exit);
  } else if (s.thread_level < 0) {
    MPI_Query_thread(&s.thread_level);
  }
  return {};
}

template <typename T, int K>
void reduce16(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const T*>(in);
  auto* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) {
    float x = static_cast<float>(a[i]), y = static_cast<float>(b[i]);
    float r = K == 0 ? x + y : K == 1 ? x * y : K == 2 ? (x < y ? x : y) : (x > y ? x : y);
    b[i] = T(r);
  }
}

/// MPI_Init_thread and the world duplicate; the mutex is held. Empty on success.
std::string initialize_locked() {
  if (std::string e = init_locked(); !e.empty()) return e;
  State& s = state();
  if (s.world != MPI_COMM_NULL) return {};
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &s.world);
  if (rc != MPI_SUCCESS) return "MPI_Comm_dup(MPI_COMM_WORLD) failed: " + mpi_message(rc);
  MPI_Comm_set_errhandler(s.world, MPI_ERRORS_RETURN);
  rc = MPI_Comm_dup(MPI_COMM_WORLD, &s.check);
  if (rc != MPI_SUCCESS) return "MPI_Comm_dup(MPI_COMM_WORLD) failed: " + mpi_message(rc);
  MPI_Comm_set_errhandler(s.check, MPI_ERRORS_RETURN);
  MPI_User_function* f16[4] = {reduce16<f16_t, 0>, reduce16<f16_t, 1>, reduce16<f16_t, 2>,
                               reduce16<f16_t, 3>};
  MPI_User_function* bf16[4] = {reduce16<bf16_t, 0>, reduce16<bf16_t, 1>, reduce16<bf16_t, 2>,
                                reduce16<bf16_t, 3>};
  for (int k = 0; k < 4; ++k) {
    MPI_Op_create(f16[k], /*commute=*/1, &s.f16_ops[k]);
    MPI_Op_create(bf16[k], /*commute=*/1, &s.bf16_ops[k]);
  }
  return {};
}

// ---- Decoding ---------------------------------------------------------------------------------

/// An INVALID_ARGUMENT error "<target>: <why>".
ffi::Error bad(const char* target, const std::string& why) {
  return ffi::Error::InvalidArgument(std::string(target) + ": " + why);
}
ffi::Error mpi_failed(const char* target, const char* call, int rc) {
  return ffi::Error::Internal(std::string(target) + ": " + call + " failed: " + mpi_message(rc));
}

const char* dtype_text(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED:
      return "pred";
    case ffi::DataType::S8:
      return "i8";
    case ffi::DataType::S16:
      return "i16";
    case ffi::DataType::S32:
      return "i32";
    case ffi::DataType::S64:
      return "i64";
    case ffi::DataType::U8:
      return "ui8";
    case ffi::DataType::U16:
      return "ui16";
    case ffi::DataType::U32:
      return "ui32";
    case ffi::DataType::U64:
      return "ui64";
    case ffi::DataType::F16:
      return "f16";
    case ffi::DataType::BF16:
      return "bf16";
    case ffi::DataType::F32:
      return "f32";
    case ffi::DataType::F64:
      return "f64";
    case ffi::DataType::C64:
      return "complex<f32>";
    case ffi::DataType::C128:
      return "complex<f64>";
    default:
      return "an unsupported element type";
  }
}

/// The MPI datatype carrying elements of `t` (f16 and bf16 as MPI_UINT16_T), or MPI_DATATYPE_NULL.
MPI_Datatype mpi_type(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED:
      return MPI_C_BOOL;
    case ffi::DataType::S8:
      return MPI_INT8_T;
    case ffi::DataType::S16:
      return MPI_INT16_T;
    case ffi::DataType::S32:
      return MPI_INT32_T;
    case ffi::DataType::S64:
      return MPI_INT64_T;
    case ffi::DataType::U8:
      return MPI_UINT8_T;
    case ffi::DataType::U16:
      return MPI_UINT16_T;
    case ffi::DataType::U32:
      return MPI_UINT32_T;
    case ffi::DataType::U64:
      return MPI_UINT64_T;
    case ffi::DataType::F16:
      return MPI_UINT16_T;
    case ffi::DataType::BF16:
      return MPI_UINT16_T;
    case ffi::DataType::F32:
      return MPI_FLOAT;
    case ffi::DataType::F64:
      return MPI_DOUBLE;
    case ffi::DataType::C64:
      return MPI_C_FLOAT_COMPLEX;
    case ffi::DataType::C128:
      return MPI_C_DOUBLE_COMPLEX;
    default:
      return MPI_DATATYPE_NULL;
  }
}

/// The MPI_Op of reduction `name` over `t`, or an error.
ffi::Error mpi_op(const char* target, std::string_view name, ffi::DataType t, MPI_Op& out) {
  int k = name == "sum" ? 0 : name == "prod" ? 1 : name == "min" ? 2 : name == "max" ? 3 : -1;
  if (k < 0)
    return bad(target, "op must be \"sum\", \"prod\", \"min\" or \"max\", got \"" +
                           std::string(name) + "\"");
  bool complex = t == ffi::DataType::C64 || t == ffi::DataType::C128;
  if (complex && k >= 2)
    return bad(target, std::string(name) + " is not defined for " + dtype_text(t) +
                           " (MPI_MIN and MPI_MAX take real types)");
  const State& s = state();
  if (t == ffi::DataType::PRED) {
    out = (k == 0 || k == 3) ? MPI_LOR : MPI_LAND;
  } else if (t == ffi::DataType::F16) {
    out = s.f16_ops[k];
  } else if (t == ffi::DataType::BF16) {
    out = s.bf16_ops[k];
  } else {
    const MPI_Op ops[4] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
    out = ops[k];
  }
  return ffi::Error::Success();
}

/// The communicator of (groups, group_size); the mutex is held and MPI initialized.
ffi::Error comm_of(const char* target, ffi::Span<const int64_t> members, int64_t group_size,
                   MPI_Comm& out) {
  State& s = state();
  if (group_size == 0 && members.size() == 0) {
    out = s.world;
    return ffi::Error::Success();
  }
  std::vector<int64_t> key(members.begin(), members.end());
  key.push_back(group_size);
  if (auto it = s.groups.find(key); it != s.groups.end()) {
    out = it->second;
    return ffi::Error::Success();
  }
  int world_rank = 0, world_size = 0;
  MPI_Comm_rank(s.world, &world_rank);
  MPI_Comm_size(s.world, &world_size);
  if (group_size <= 0 || members.size() % static_cast<size_t>(group_size) != 0)
    return bad(target, "groups of " + std::to_string(members.size()) +
                           " ranks do not split into groups of size " + std::to_string(group_size));
  if (static_cast<int64_t>(members.size()) != world_size)
    return bad(target, "the program's groups cover " + std::to_string(members.size()) +
                           " ranks, but the job has " + std::to_string(world_size) +
                           " processes (mpirun -np " + std::to_string(members.size()) + ")");
  std::vector<bool> seen(static_cast<size_t>(world_size), false);
  int color = -1, position = -1;
  for (size_t i = 0; i < members.size(); ++i) {
    int64_t r = members[i];
    if (r < 0 || r >= world_size || seen[static_cast<size_t>(r)])
      return bad(target, "the groups must hold every rank 0.." + std::to_string(world_size - 1) +
                             " once, rank " + std::to_string(r) + " is out of range or repeated");
    seen[static_cast<size_t>(r)] = true;
    if (r == world_rank) {
      color = static_cast<int>(i / static_cast<size_t>(group_size));
      position = static_cast<int>(i % static_cast<size_t>(group_size));
    }
  }
  MPI_Comm c = MPI_COMM_NULL;
  if (int rc = MPI_Comm_split(s.world, color, position, &c); rc != MPI_SUCCESS)
    return mpi_failed(target, "MPI_Comm_split", rc);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  s.groups.emplace(std::move(key), c);
  out = c;
  return ffi::Error::Success();
}

/// Everything a handler needs before its MPI call: the lock, MPI initialized, the communicator,
/// its size and this rank in it, the element type's MPI datatype.
struct Call {
  std::unique_lock<std::mutex> lock{mpi_mutex()};
  MPI_Comm comm = MPI_COMM_NULL;
  int size = 0, rank = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};

/// `n` as an MPI count, or false past INT_MAX.
bool to_count(size_t n, int& out) {
  if (n > static_cast<size_t>(INT_MAX)) return false;
  out = static_cast<int>(n);
  return true;
}

ffi::Error too_big(const char* target, size_t n) {
  return bad(target, std::to_string(n) + " elements exceed MPI's int count (2^31 - 1)");
}

std::string dims_text(ffi::Span<const int64_t> d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

void clear_token(ffi::Result<ffi::AnyBuffer>& token) {
  if (token->size_bytes() > 0) std::memset(token->untyped_data(), 0, token->size_bytes());
}

/// y must have x's dtype and dims.
ffi::Error same_as_x(const char* target, const ffi::AnyBuffer& x, const ffi::AnyBuffer& y) {
  if (x.element_type() != y.element_type())
    return bad(target, std::string("the result is ") + dtype_text(y.element_type()) +
                           ", the operand " + dtype_text(x.element_type()));
  auto xd = x.dimensions(), yd = y.dimensions();
  if (xd.size() != yd.size() || !std::equal(xd.begin(), xd.end(), yd.begin()))
    return bad(target, "the result has dims " + dims_text(yd) + ", the operand " + dims_text(xd));
  return ffi::Error::Success();
}

/// `lead` must be [n, rest...] with rest == `rest`, n == comm size.
ffi::Error leading_n(const char* target, const char* what, ffi::Span<const int64_t> lead,
                     ffi::Span<const int64_t> rest, int n) {
  bool ok =
      lead.size() == rest.size() + 1 && std::equal(rest.begin(), rest.end(), lead.begin() + 1);
  if (!ok)
    return bad(target, std::string(what) + " has dims " + dims_text(lead) +
                           ", expected the communicator size followed by " + dims_text(rest));
  if (lead[0] != n)
    return bad(target, "the program was built for a communicator of " + std::to_string(lead[0]) +
                           " processes (" + what + " dims " + dims_text(lead) + "), this one has " +
                           std::to_string(n));
  return ffi::Error::Success();
}

// ---- Checked mode -------------------------------------------------------------------------------
// Before its own MPI call, each collective gathers every rank's signature of it (16 int64, the
// same size on every rank whatever the call, so the messages always match) and refuses to go on
// when they differ: every rank then returns the same error instead of MPI mixing data or waiting
// forever. The gather is bounded in time: every rank sends its signature to world rank 0, which
// waits for them until the timeout, then sends every signature back to every rank (point to
// point on a communicator of its own, polled with MPI_Test). A rank that does not arrive in time
// (it hangs, died without ending the job, or runs other code) is named by rank 0, and the job is
// ended (MPI_Abort); ranks waiting for rank 0 wait twice the timeout, then name rank 0.

std::atomic<bool>& checked_flag() {
  static std::atomic<bool> on{false};
  return on;
}

std::atomic<int64_t>& in_place_count() {
  static std::atomic<int64_t> n{0};
  return n;
}

/// MPI_IN_PLACE when XLA gave operand and result one buffer (counted), else the operand.
const void* send_buffer(const ffi::AnyBuffer& x, const void* y) {
  if (x.untyped_data() != y) return x.untyped_data();
  in_place_count().fetch_add(1, std::memory_order_relaxed);
  return MPI_IN_PLACE;
}

std::atomic<int64_t>& timeout_ms() {
  static std::atomic<int64_t> ms{120'000};
  return ms;
}

using bound::abort_job;
using bound::Clock;
using bound::ranks_text;
using bound::seconds_text;
using bound::wait_until;

/// Gathers every rank's signature into `all` (n * kSigLen) within the timeout, or ends the job.
void exchange_signatures(const char* target, const int64_t* mine, int len,
                         std::vector<int64_t>& all) {
  const MPI_Comm comm = state().check;
  int n = 0, rank = 0;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &rank);
  all.assign(static_cast<size_t>(n) * static_cast<size_t>(len), 0);
  constexpr int kUp = 2418, kDown = 2419;
  const int64_t ms = timeout_ms().load();
  const Clock::time_point start = Clock::now();
  if (rank == 0) {
    std::copy_n(mine, len, all.begin());
    std::vector<MPI_Request> reqs(static_cast<size_t>(n), MPI_REQUEST_NULL);
    for (int q = 1; q < n; ++q)
      MPI_Irecv(all.data() + static_cast<size_t>(q) * static_cast<size_t>(len), len, MPI_INT64_T, q,
                kUp, comm, &reqs[static_cast<size_t>(q)]);
    std::vector<int> late = wait_until(reqs, start + std::chrono::milliseconds(ms));
    if (!late.empty())
      abort_job(target, ranks_text(late) + " did not reach this collective within " +
                            seconds_text(ms) +
                            " (checked mode, hhlo::mpi::set_timeout): hung, too slow, dead "
                            "without ending the job, or at other collectives");
    std::vector<MPI_Request> sends(static_cast<size_t>(n), MPI_REQUEST_NULL);
    for (int q = 1; q < n; ++q)
      MPI_Isend(all.data(), n * len, MPI_INT64_T, q, kDown, comm, &sends[static_cast<size_t>(q)]);
    std::vector<int> stuck = wait_until(sends, Clock::now() + std::chrono::milliseconds(ms));
    if (!stuck.empty())
      abort_job(target, ranks_text(stuck) + " did not take the signatures within " +
                            seconds_text(ms) + " (checked mode)");
    return;
  }
  std::vector<MPI_Request> reqs(2, MPI_REQUEST_NULL);
  MPI_Isend(mine, len, MPI_INT64_T, 0, kUp, comm, &reqs[0]);
  MPI_Irecv(all.data(), n * len, MPI_INT64_T, 0, kDown, comm, &reqs[1]);
  if (!wait_until(reqs, start + std::chrono::milliseconds(2 * ms)).empty())
    abort_job(target, "rank 0 did not answer within " + seconds_text(2 * ms) +
                          " (checked mode, twice hhlo::mpi::set_timeout): it did not reach this "
                          "collective (hung, too slow, dead without ending the job, or at other "
                          "collectives)");
}

constexpr int kSigLen = 16;
constexpr int64_t kSigMagic = 0x6868'6c6f'6d70'6931;  // "hhlompi1"
using Signature = std::array<int64_t, kSigLen>;

uint64_t fnv(uint64_t h, const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

const char* const kTargetNames[] = {"?",
                                    "hhlo_mpi_allreduce",
                                    "hhlo_mpi_allgather",
                                    "hhlo_mpi_reduce_scatter",
                                    "hhlo_mpi_alltoall",
                                    "hhlo_mpi_bcast",
                                    "hhlo_mpi_sendrecv",
                                    "hhlo_mpi_barrier"};

int64_t target_code(const char* target) {
  for (int64_t i = 1; i < 8; ++i)
    if (std::strcmp(kTargetNames[i], target) == 0) return i;
  return 0;
}

/// What the ranks must agree on: target, element type, operand dims, attributes, communicator.
Signature signature(const char* target, ffi::DataType dtype, ffi::Span<const int64_t> dims,
                    uint64_t attrs, ffi::Span<const int64_t> members, int64_t group_size) {
  Signature s{};
  s[0] = kSigMagic;
  s[1] = target_code(target);
  s[2] = static_cast<int64_t>(dtype);
  s[3] = static_cast<int64_t>(dims.size());
  uint64_t rest = 1469598103934665603ull;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i < 8)
      s[4 + i] = dims[i];
    else
      rest = fnv(rest, &dims[i], sizeof(int64_t));
  }
  s[12] = static_cast<int64_t>(rest);
  s[13] = static_cast<int64_t>(attrs);
  s[14] = static_cast<int64_t>(
      fnv(1469598103934665603ull, members.begin(), members.size() * sizeof(int64_t)));
  s[15] = group_size;
  return s;
}

std::string signature_text(const Signature& s) {
  if (s[0] != kSigMagic) return "not a checked hhlo::mpi collective";
  std::string t = kTargetNames[s[1] >= 0 && s[1] < 8 ? s[1] : 0];
  if (s[1] == 7) return t;
  t += std::string(" ") + dtype_text(static_cast<ffi::DataType>(s[2])) + "[";
  for (int64_t i = 0; i < s[3]; ++i)
    t += (i ? "," : "") + (i < 8 ? std::to_string(s[4 + i]) : std::string("..."));
  return t + "] attributes #" + std::to_string(static_cast<uint64_t>(s[13]) % 100000) +
         " groups #" + std::to_string(static_cast<uint64_t>(s[14]) % 100000) + "/" +
         std::to_string(s[15]);
}

/// Compares this rank's signature with every rank's (the mutex is held, MPI initialized).
ffi::Error check_signatures(const char* target, const Signature& mine) {
  int n = 0;
  MPI_Comm_size(state().check, &n);
  std::vector<int64_t> all;
  exchange_signatures(target, mine.data(), kSigLen, all);
  bool same = true;
  for (int q = 0; q < n && same; ++q)
    same = std::equal(mine.begin(), mine.end(), all.begin() + q * kSigLen);
  if (same) return ffi::Error::Success();
  // Every distinct signature once, with the ranks holding it, in rank order.
  std::vector<std::pair<Signature, std::vector<int>>> seen;
  for (int q = 0; q < n; ++q) {
    Signature s;
    std::copy_n(all.begin() + q * kSigLen, kSigLen, s.begin());
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == s; });
    if (it == seen.end())
      seen.push_back({s, {q}});
    else
      it->second.push_back(q);
  }
  std::string text;
  for (const auto& [sig, ranks] : seen) {
    text += text.empty() ? "" : "; ";
    text += ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t k = 0; k < ranks.size(); ++k) text += (k ? ", " : "") + std::to_string(ranks[k]);
    text += ": " + signature_text(sig);
  }
  return bad(target, "the ranks disagree on this collective (checked mode): " + text);
}

/// Everything a handler needs before its MPI call: the lock, MPI initialized, the signatures
/// compared (checked mode), the communicator, its size and this rank in it, the MPI datatype.
ffi::Error begin(const char* target, ffi::Span<const int64_t> members, int64_t group_size,
                 ffi::DataType dtype, ffi::Span<const int64_t> dims, uint64_t attrs, Call& c) {
  if (std::string e = initialize_locked(); !e.empty())
    return ffi::Error::Internal(std::string(target) + ": " + e);
  if (checked_flag().load()) {
    Signature sig = signature(target, dtype, dims, attrs, members, group_size);
    if (auto e = check_signatures(target, sig); e.failure()) return e;
  }
  if (auto e = comm_of(target, members, group_size, c.comm); e.failure()) return e;
  MPI_Comm_size(c.comm, &c.size);
  MPI_Comm_rank(c.comm, &c.rank);
  if (dtype != ffi::DataType::TOKEN) {
    c.type = mpi_type(dtype);
    if (c.type == MPI_DATATYPE_NULL)
      return bad(target, std::string("the element type is ") + dtype_text(dtype) +
                             "; supported: pred, i8..i64, ui8..ui64, f16, bf16, f32, f64, "
                             "complex<f32>, complex<f64>");
  }
  return ffi::Error::Success();
}

/// The world ranks of `comm`'s members in its rank order (MPI_Group_translate_ranks; cached for
/// the process, the mutex is held).
const std::vector<int>& world_ranks_of(MPI_Comm comm) {
  State& s = state();
  auto [it, added] = s.world_ranks.try_emplace(comm);
  if (!added) return it->second;
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(s.world, &world);
  int n = 0;
  MPI_Group_size(group, &n);
  std::vector<int> ranks(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<size_t>(i)] = i;
  it->second.resize(static_cast<size_t>(n));
  MPI_Group_translate_ranks(group, n, ranks.data(), world, it->second.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return it->second;
}

/// Runs `mpi_call`, the collective's blocking MPI call, and returns its status. In checked mode
/// it is bounded by the timeout: a watchdog ends the job when the call is still in flight then
/// (collective_bound.h). Unchecked, or with no bound (set_timeout's saturated maximum, `inf`), it
/// runs as it is.
template <typename F>
int bounded(const char* target, const Call& c, F&& mpi_call) {
  const int64_t ms = timeout_ms().load();
  if (!checked_flag().load() || ms >= bound::kNoBoundMs) return mpi_call();
  bound::Armed armed(target, state().check, world_ranks_of(c.comm), ms,
                     state().thread_level >= MPI_THREAD_MULTIPLE);
  return mpi_call();
}

uint64_t hash_of(std::string_view s) { return fnv(1469598103934665603ull, s.data(), s.size()); }
uint64_t hash_of(int64_t v) { return fnv(1469598103934665603ull, &v, sizeof v); }
uint64_t hash_of(ffi::Span<const int64_t> v) {
  return fnv(1469598103934665603ull, v.begin(), v.size() * sizeof(int64_t));
}

// ---- Handlers ---------------------------------------------------------------------------------

// MPI_Allreduce (MPI_IN_PLACE when XLA gives one buffer: the builder aliases y to x).
ffi::Error allreduce(ffi::AnyBuffer x, ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> y,
                     ffi::Result<ffi::AnyBuffer> token, std::string_view op,
                     ffi::Span<const int64_t> groups, int64_t group_size) {
  constexpr const char* target = "hhlo_mpi_allreduce";
  return guarded(target, [&]() -> ffi::Error {
    if (auto e = same_as_x(target, x, *y); e.failure()) return e;
    Call c;
    if (auto e =
            begin(target, groups, group_size, x.element_type(), x.dimensions(), hash_of(op), c);
        e.failure())
      return e;
    MPI_Op mop;
    if (auto e = mpi_op(target, op, x.element_type(), mop); e.failure()) return e;
    int count = 0;
    if (!to_count(x.element_count(), count)) return too_big(target, x.element_count());
    const void* send = send_buffer(x, y->untyped_data());
    if (int rc = bounded(
            target, c,
            [&] { return MPI_Allreduce(send, y->untyped_data(), count, c.type, mop, c.comm); });
        rc)
      return mpi_failed(target, "MPI_Allreduce", rc);
    clear_token(token);
    return ffi::Error::Success();
  });
}

// MPI_Allgather: [d...] -> [n, d...].
ffi::Error allgather(ffi::AnyBuffer x, ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> y,
                     ffi::Result<ffi::AnyBuffer> token, ffi::Span<const int64_t> groups,
                     int64_t group_size) {
  constexpr const char* target = "hhlo_mpi_allgather";
  return guarded(target, [&]() -> ffi::Error {
    if (x.element_type() != y->element_type())
      return bad(target, "result and operand dtypes differ");
    Call c;
    if (auto e = begin(target, groups, group_size, x.element_type(), x.dimensions(), 0, c);
        e.failure())
      return e;
    if (auto e = leading_n(target, "the result", y->dimensions(), x.dimensions(), c.size);
        e.failure())
      return e;
    int count = 0, total = 0;
    if (!to_count(y->element_count(), total)) return too_big(target, y->element_count());
    count = static_cast<int>(x.element_count());
    if (int rc = bounded(target, c,
                         [&] {
                           return MPI_Allgather(x.untyped_data(), count, c.type, y->untyped_data(),
                                                count, c.type, c.comm);
                         });
        rc)
      return mpi_failed(target, "MPI_Allgather", rc);
    clear_token(token);
    return ffi::Error::Success();
  });
}

// MPI_Reduce_scatter_block: [n, d...] -> [d...].
ffi::Error reduce_scatter(ffi::AnyBuffer x, ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> y,
                          ffi::Result<ffi::AnyBuffer> token, std::string_view op,
                          ffi::Span<const int64_t> groups, int64_t group_size) {
  constexpr const char* target = "hhlo_mpi_reduce_scatter";
  return guarded(target, [&]() -> ffi::Error {
    if (x.element_type() != y->element_type())
      return bad(target, "result and operand dtypes differ");
    Call c;
    if (auto e =
            begin(target, groups, group_size, x.element_type(), x.dimensions(), hash_of(op), c);
        e.failure())
      return e;
    if (auto e = leading_n(target, "the operand", x.dimensions(), y->dimensions(), c.size);
        e.failure())
      return e;
    MPI_Op mop;
    if (auto e = mpi_op(target, op, x.element_type(), mop); e.failure()) return e;
    int count = 0, total = 0;
    if (!to_count(x.element_count(), total)) return too_big(target, x.element_count());
    count = static_cast<int>(y->element_count());
    if (int rc = bounded(target, c,
                         [&] {
                           return MPI_Reduce_scatter_block(x.untyped_data(), y->untyped_data(),
                                                           count, c.type, mop, c.comm);
                         });
        rc)
      return mpi_failed(target, "MPI_Reduce_scatter_block", rc);
    clear_token(token);
    return ffi::Error::Success();
  });
}

// MPI_Alltoall: [n, d...] -> [n, d...].
ffi::Error alltoall(ffi::AnyBuffer x, ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> y,
                    ffi::Result<ffi::AnyBuffer> token, ffi::Span<const int64_t> groups,
                    int64_t group_size) {
  constexpr const char* target = "hhlo_mpi_alltoall";
  return guarded(target, [&]() -> ffi::Error {
    if (auto e = same_as_x(target, x, *y); e.failure()) return e;
    Call c;
    if (auto e = begin(target, groups, group_size, x.element_type(), x.dimensions(), 0, c);
        e.failure())
      return e;
    auto d = x.dimensions();
    if (d.size() == 0) return bad(target, "the operand must have rank >= 1 ([n, ...])");
    if (auto e = leading_n(target, "the operand", d,
                           ffi::Span<const int64_t>(d.begin() + 1, d.size() - 1), c.size);
        e.failure())
      return e;
    int count = 0;
    if (!to_count(x.element_count(), count)) return too_big(target, x.element_count());
    count = c.size ? count / c.size : 0;
    const void* send = send_buffer(x, y->untyped_data());
    if (int rc = bounded(target, c,
                         [&] {
                           return MPI_Alltoall(send, count, c.type, y->untyped_data(), count,
                                               c.type, c.comm);
                         });
        rc)
      return mpi_failed(target, "MPI_Alltoall", rc);
    clear_token(token);
    return ffi::Error::Success();
  });
}

// MPI_Bcast from communicator rank `root` (the root's x copied into y first).
ffi::Error bcast(ffi::AnyBuffer x, ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> y,
                 ffi::Result<ffi::AnyBuffer> token, int64_t root, ffi::Span<const int64_t> groups,
                 int64_t group_size) {
  constexpr const char* target = "hhlo_mpi_bcast";
  return guarded(target, [&]() -> ffi::Error {
    if (auto e = same_as_x(target, x, *y); e.failure()) return e;
    Call c;
    if (auto e =
            begin(target, groups, group_size, x.element_type(), x.dimensions(), hash_of(root), c);
        e.failure())
      return e;
    if (root < 0 || root >= c.size)
      return bad(target, "root " + std::to_string(root) + " is not a rank of a communicator of " +
                             std::to_string(c.size));
    int count = 0;
    if (!to_count(x.element_count(), count)) return too_big(target, x.element_count());
    if (c.rank == root && x.untyped_data() != y->untyped_data() && x.size_bytes() > 0)
      std::memcpy(y->untyped_data(), x.untyped_data(), x.size_bytes());
    if (int rc = bounded(target, c,
                         [&] {
                           return MPI_Bcast(y->untyped_data(), count, c.type,
                                            static_cast<int>(root), c.comm);
                         });
        rc)
      return mpi_failed(target, "MPI_Bcast", rc);
    clear_token(token);
    return ffi::Error::Success();
  });
}

// MPI_Sendrecv over (source, target) pairs; zeros where this rank is no target.
ffi::Error sendrecv(ffi::AnyBuffer x, ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> y,
                    ffi::Result<ffi::AnyBuffer> token, ffi::Span<const int64_t> pairs,
                    ffi::Span<const int64_t> groups, int64_t group_size) {
  constexpr const char* target = "hhlo_mpi_sendrecv";
  return guarded(target, [&]() -> ffi::Error {
    if (auto e = same_as_x(target, x, *y); e.failure()) return e;
    Call c;
    if (auto e =
            begin(target, groups, group_size, x.element_type(), x.dimensions(), hash_of(pairs), c);
        e.failure())
      return e;
    if (pairs.size() % 2 != 0) return bad(target, "pairs must hold (source, target) pairs");
    int dest = MPI_PROC_NULL, source = MPI_PROC_NULL;
    std::vector<bool> is_source(static_cast<size_t>(c.size)), is_target(is_source);
    for (size_t i = 0; i < pairs.size(); i += 2) {
      int64_t s = pairs[i], t = pairs[i + 1];
      if (s < 0 || s >= c.size || t < 0 || t >= c.size)
        return bad(target, "pair (" + std::to_string(s) + ", " + std::to_string(t) +
                               ") names a rank outside a communicator of " +
                               std::to_string(c.size));
      if (is_source[static_cast<size_t>(s)] || is_target[static_cast<size_t>(t)])
        return bad(target, "rank " + std::to_string(is_source[static_cast<size_t>(s)] ? s : t) +
                               " appears twice as a source or twice as a target");
      is_source[static_cast<size_t>(s)] = is_target[static_cast<size_t>(t)] = true;
      if (s == c.rank) dest = static_cast<int>(t);
      if (t == c.rank) source = static_cast<int>(s);
    }
    int count = 0;
    if (!to_count(x.element_count(), count)) return too_big(target, x.element_count());
    constexpr int kTag = 2417;
    int rc = bounded(target, c, [&] {
      return x.untyped_data() == y->untyped_data()
                 ? MPI_Sendrecv_replace(y->untyped_data(), count, c.type, dest, kTag, source, kTag,
                                        c.comm, MPI_STATUS_IGNORE)
                 : MPI_Sendrecv(x.untyped_data(), count, c.type, dest, kTag, y->untyped_data(),
                                count, c.type, source, kTag, c.comm, MPI_STATUS_IGNORE);
    });
    if (rc) return mpi_failed(target, "MPI_Sendrecv", rc);
    if (source == MPI_PROC_NULL && y->size_bytes() > 0)
      std::memset(y->untyped_data(), 0, y->size_bytes());
    clear_token(token);
    return ffi::Error::Success();
  });
}

// MPI_Barrier.
ffi::Error barrier(ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> token,
                   ffi::Span<const int64_t> groups, int64_t group_size) {
  constexpr const char* target = "hhlo_mpi_barrier";
  return guarded(target, [&]() -> ffi::Error {
    Call c;
    if (auto e = begin(target, groups, group_size, ffi::DataType::TOKEN, {}, 0, c); e.failure())
      return e;
    if (int rc = bounded(target, c, [&] { return MPI_Barrier(c.comm); }); rc)
      return mpi_failed(target, "MPI_Barrier", rc);
    clear_token(token);
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace hhlo::mpi

namespace hm = hhlo::mpi;

/// (x, token) -> (y, token) with the communicator attributes last.
#define HHLO_MPI_BIND_XY()   \
  ffi::Ffi::Bind()           \
      .Arg<ffi::AnyBuffer>() \
      .Arg<ffi::AnyBuffer>() \
      .Ret<ffi::AnyBuffer>() \
      .Ret<ffi::AnyBuffer>()

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_mpi_allreduce_ffi, hm::allreduce,
                              HHLO_MPI_BIND_XY()
                                  .Attr<std::string_view>("op")
                                  .Attr<ffi::Span<const int64_t>>("groups")
                                  .Attr<int64_t>("group_size"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hhlo_mpi_allgather_ffi, hm::allgather,
    HHLO_MPI_BIND_XY().Attr<ffi::Span<const int64_t>>("groups").Attr<int64_t>("group_size"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_mpi_reduce_scatter_ffi, hm::reduce_scatter,
                              HHLO_MPI_BIND_XY()
                                  .Attr<std::string_view>("op")
                                  .Attr<ffi::Span<const int64_t>>("groups")
                                  .Attr<int64_t>("group_size"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hhlo_mpi_alltoall_ffi, hm::alltoall,
    HHLO_MPI_BIND_XY().Attr<ffi::Span<const int64_t>>("groups").Attr<int64_t>("group_size"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hhlo_mpi_bcast_ffi, hm::bcast,
    HHLO_MPI_BIND_XY().Attr<int64_t>("root").Attr<ffi::Span<const int64_t>>("groups").Attr<int64_t>(
        "group_size"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_mpi_sendrecv_ffi, hm::sendrecv,
                              HHLO_MPI_BIND_XY()
                                  .Attr<ffi::Span<const int64_t>>("pairs")
                                  .Attr<ffi::Span<const int64_t>>("groups")
                                  .Attr<int64_t>("group_size"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_mpi_barrier_ffi, hm::barrier,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<ffi::Span<const int64_t>>("groups")
                                  .Attr<int64_t>("group_size"));

// ---- Registration and host API ----------------------------------------------------------------
namespace hhlo {
namespace {

struct Target {
  const char* name;
  XLA_FFI_Handler* handler;
};
const Target kTargets[] = {
    {"hhlo_mpi_allreduce", hhlo_mpi_allreduce_ffi},
    {"hhlo_mpi_allgather", hhlo_mpi_allgather_ffi},
    {"hhlo_mpi_reduce_scatter", hhlo_mpi_reduce_scatter_ffi},
    {"hhlo_mpi_alltoall", hhlo_mpi_alltoall_ffi},
    {"hhlo_mpi_bcast", hhlo_mpi_bcast_ffi},
    {"hhlo_mpi_sendrecv", hhlo_mpi_sendrecv_ffi},
    {"hhlo_mpi_barrier", hhlo_mpi_barrier_ffi},
};

}  // namespace

std::vector<std::string> mpi_kernel_targets() {
  std::vector<std::string> out;
  for (const Target& t : kTargets) out.emplace_back(t.name);
  return out;
}

void register_mpi_kernels(const Plugin& plugin) {
  mpi::initialize();
  for (const Target& t : kTargets)
    register_custom_call(plugin, t.name, reinterpret_cast<void*>(t.handler), "Host");
}

void register_mpi_kernels(const Client& client) { register_mpi_kernels(client.plugin()); }

namespace mpi {

void initialize() {
  std::lock_guard<std::mutex> lock(mpi_mutex());
  if (std::string e = initialize_locked(); !e.empty()) throw Error("hhlo::mpi::initialize: " + e);
}

namespace {
void init_only(const char* who) {
  std::lock_guard<std::mutex> lock(mpi_mutex());
  if (std::string e = init_locked(); !e.empty()) throw Error(std::string(who) + ": " + e);
}
}  // namespace

int world_rank() {
  init_only("hhlo::mpi::world_rank");
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  init_only("hhlo::mpi::world_size");
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

void set_checked(bool on) { checked_flag().store(on); }

void set_timeout(std::chrono::milliseconds t) {
  if (t.count() <= 0)
    throw Error("hhlo::mpi::set_timeout: the timeout must be positive, got " +
                std::to_string(t.count()) + " ms");
  // Saturated: the deadlines add twice the timeout to steady_clock's nanoseconds, which a
  // larger one overflowed into the past (the job ended at once).
  timeout_ms().store(std::min<int64_t>(t.count(), bound::kNoBoundMs));
}
std::chrono::milliseconds timeout() { return std::chrono::milliseconds(timeout_ms().load()); }
bool checked() { return checked_flag().load(); }
int64_t in_place_collectives() { return in_place_count().load(std::memory_order_relaxed); }

int thread_level() {
  init_only("hhlo::mpi::thread_level");
  std::lock_guard<std::mutex> lock(mpi_mutex());
  return state().thread_level;
}

}  // namespace mpi
}  // namespace hhlo
