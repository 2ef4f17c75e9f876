// Private to the runtime: the PJRT C API declarations and the one helper every C call goes through.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "custom_call_registry.h"
#include "hhlo/core/dtype.h"
#include "hhlo/core/error.h"
#include "hhlo/runtime/key_value_store.h"
#include "hhlo/runtime/pjrt_handle.h"
#include "hhlo/runtime/plugin.h"
#include "pjrt_abi.h"

namespace hhlo::detail {

struct PluginState {
  std::string path;
  void* library = nullptr;
  const PJRT_Api* api = nullptr;
  std::map<std::string, PluginAttribute> attributes;
  /// What this process registered with the plugin through custom_call.h.
  mutable CustomCallRegistry custom_calls;
};

/// Owns the PJRT_Client; shared by every object of the client, so it is destroyed last.
struct ClientState {
  ClientState(Plugin p, const PJRT_Api* a, PJRT_Client* c,
              std::shared_ptr<KeyValueStore> store = nullptr)
      : plugin(p), api(a), kv_store(std::move(store)), client(a, c) {}
  ClientState(const ClientState&) = delete;
  ClientState& operator=(const ClientState&) = delete;
  Plugin plugin;
  const PJRT_Api* api;
  /// The store the client's kv callbacks call; outlives the PJRT_Client (declared before it, so
  /// destroyed after it).
  std::shared_ptr<KeyValueStore> kv_store;
  PjrtHandle<PJRT_Client> client;
};

/// An owner of `handle`, made by the client of `client`, that keeps `client` alive.
template <typename T>
PjrtHandle<T> owned_by(std::shared_ptr<const ClientState> client, void* handle) {
  const PJRT_Api* api = client->api;  // read before `client` is moved into the owner
  return PjrtHandle<T>(api, static_cast<T*>(handle), std::move(client));
}

/// A zeroed PJRT args struct with struct_size set: `auto a = args<PJRT_Foo_Args>();`
/// (the *_STRUCT_SIZE macro of the header; sizeof is the same or larger, never smaller).
template <typename T>
T args() {
  T a{};
  a.struct_size = sizeof(T);
  return a;
}

/// Turns a returned PJRT_Error into hhlo::PjrtError naming `function`, destroying the error.
void check(const PJRT_Api* api, PJRT_Error* error, const char* function);

/// What a PJRT_Error said.
struct TakenError {
  PjrtErrorCode code;
  std::string message;
};
/// Code and message of `error`, which is destroyed.
TakenError take_error(const PJRT_Api* api, PJRT_Error* error);
/// Destroys `error` (null: nothing) unread, where a failure changes nothing: in an owner's
/// destructor, or a call with a fallback.
void discard_error(const PJRT_Api* api, PJRT_Error* error) noexcept;

/// Throws PluginError when the plugin's PJRT_Api table is too small to hold `offset`.
void require(const PJRT_Api* api, std::size_t offset, const char* function);
#define HHLO_PJRT_FN(api, name) \
  (::hhlo::detail::require((api), offsetof(PJRT_Api, name), #name), (api)->name)

/// Calls api->NAME(&a) and throws PjrtError("NAME") on error.
#define HHLO_PJRT_CALL(api, name, a) \
  ::hhlo::detail::check((api), HHLO_PJRT_FN(api, name)(&(a)), #name)

PJRT_Buffer_Type to_pjrt(DType t);
DType from_pjrt(PJRT_Buffer_Type t);

}  // namespace hhlo::detail
