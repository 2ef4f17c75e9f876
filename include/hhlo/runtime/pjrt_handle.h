// Internal to the runtime, public only because Buffer, Event and LoadedExecutable hold one: the
// one owner of every PJRT handle (PJRT_Buffer, PJRT_Event, PJRT_LoadedExecutable, ...), which
// destroys it once through the PJRT_Api that made it.
#pragma once

#include <memory>
#include <utility>

// The PJRT C API's handle types, declared as pjrt_c_api.h declares them (opaque structs).
extern "C" {
struct PJRT_Api;
struct PJRT_Buffer;
struct PJRT_Client;
struct PJRT_Event;
struct PJRT_ExecuteContext;
struct PJRT_Executable;
struct PJRT_LoadedExecutable;
}

namespace hhlo::detail {

struct ClientState;

/// PJRT_<T>_Destroy of `handle` through `api`, any error it returns discarded (an owner going
/// away has nothing sensible to do with it). One overload per handle type (src/runtime/pjrt.cc).
void destroy_handle(const PJRT_Api* api, PJRT_Buffer* handle) noexcept;
void destroy_handle(const PJRT_Api* api, PJRT_Client* handle) noexcept;
void destroy_handle(const PJRT_Api* api, PJRT_Event* handle) noexcept;
void destroy_handle(const PJRT_Api* api, PJRT_ExecuteContext* handle) noexcept;
void destroy_handle(const PJRT_Api* api, PJRT_Executable* handle) noexcept;
void destroy_handle(const PJRT_Api* api, PJRT_LoadedExecutable* handle) noexcept;

/// Owns one PJRT handle of type T: destroys it through `api` (destroy_handle) when the owner goes
/// or is assigned over, and holds `keep` (the state of the client that made the handle; null for
/// the client itself and for handles of a bare PJRT_Api) until the handle is destroyed, so the
/// client always outlives what it made. Move-only; a moved-from owner holds nothing. `api` is a
/// loaded plugin's table, which is never unloaded.
template <typename T>
class PjrtHandle {
 public:
  PjrtHandle() = default;
  PjrtHandle(const PJRT_Api* api, T* handle,
             std::shared_ptr<const ClientState> keep = nullptr) noexcept
      : keep_(std::move(keep)), api_(api), handle_(handle) {}
  PjrtHandle(PjrtHandle&& o) noexcept
      : keep_(std::move(o.keep_)), api_(o.api_), handle_(std::exchange(o.handle_, nullptr)) {}
  PjrtHandle& operator=(PjrtHandle&& o) noexcept {
    if (this != &o) {
      reset();  // the old handle goes while its client is still held
      keep_ = std::move(o.keep_);
      api_ = o.api_;
      handle_ = std::exchange(o.handle_, nullptr);
    }
    return *this;
  }
  ~PjrtHandle() { reset(); }

  /// The handle, null when empty (default-constructed or moved-from).
  T* get() const { return handle_; }
  /// The API table the handle is destroyed through.
  const PJRT_Api* api() const { return api_; }
  /// The client state held for the handle (null when none).
  const std::shared_ptr<const ClientState>& keep() const { return keep_; }
  /// Destroys the handle now; the owner is then empty. Nothing when already empty.
  void reset() noexcept {
    if (handle_) destroy_handle(api_, std::exchange(handle_, nullptr));
  }

 private:
  std::shared_ptr<const ClientState> keep_;
  const PJRT_Api* api_ = nullptr;
  T* handle_ = nullptr;
};

}  // namespace hhlo::detail
