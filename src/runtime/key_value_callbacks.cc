#include "key_value_callbacks.h"

#include <fmt/format.h>

#include <cstring>
#include <exception>

namespace hhlo::detail {
namespace {

PJRT_Error* make_error(PJRT_CallbackError* make, PJRT_Error_Code code, const std::string& m) {
  // The C API always passes callback_error; without it there is no way to report, and returning
  // nullptr would claim success, so the message is at least made visible.
  if (!make || !*make) {
    fmt::print(stderr, "hhlo: key-value callback error with no callback_error: {}\n", m);
    return nullptr;
  }
  return (*make)(code, m.data(), m.size());
}

/// Runs `body`; an exception becomes a PJRT error "KeyValueStore::OP(\"KEY\"): WHAT".
template <typename F>
PJRT_Error* guarded(PJRT_CallbackError* make, const char* op, std::string_view key, F&& body) {
  auto message = [&](const char* what) {
    return fmt::format("KeyValueStore::{}(\"{}\"): {}", op, key, what);
  };
  try {
    return body();
  } catch (const KeyValueTimeout& e) {
    return make_error(make, PJRT_Error_Code_DEADLINE_EXCEEDED, message(e.what()));
  } catch (const std::exception& e) {
    return make_error(make, PJRT_Error_Code_UNKNOWN, message(e.what()));
  } catch (...) {
    return make_error(make, PJRT_Error_Code_UNKNOWN, message("a non-standard exception"));
  }
}

char* copy_out(const std::string& v) {
  char* out = new char[v.size() + 1];
  std::memcpy(out, v.data(), v.size());
  out[v.size()] = '\0';
  return out;
}

void delete_value(char* value) { delete[] value; }

KeyValueStore* store_of(void* user_arg) { return static_cast<KeyValueStore*>(user_arg); }

}  // namespace

PJRT_Error* kv_get(PJRT_KeyValueGetCallback_Args* a) {
  std::string_view key(a->key, a->key_size);
  return guarded(a->callback_error, "get", key, [&]() -> PJRT_Error* {
    auto timeout = a->timeout_in_ms < 0 ? std::chrono::milliseconds(std::chrono::hours(24))
                                        : std::chrono::milliseconds(a->timeout_in_ms);
    std::string v = store_of(a->user_arg)->get(key, timeout);
    a->value = copy_out(v);
    a->value_size = v.size();
    a->value_deleter_callback = &delete_value;
    return nullptr;
  });
}

PJRT_Error* kv_put(PJRT_KeyValuePutCallback_Args* a) {
  std::string_view key(a->key, a->key_size);
  return guarded(a->callback_error, "set", key, [&]() -> PJRT_Error* {
    store_of(a->user_arg)->set(key, std::string_view(a->value, a->value_size));
    return nullptr;
  });
}

PJRT_Error* kv_try_get(PJRT_KeyValueTryGetCallback_Args* a) {
  std::string_view key(a->key, a->key_size);
  return guarded(a->callback_error, "try_get", key, [&]() -> PJRT_Error* {
    std::optional<std::string> v = store_of(a->user_arg)->try_get(key);
    if (!v)
      return make_error(a->callback_error, PJRT_Error_Code_NOT_FOUND,
                        fmt::format("KeyValueStore::try_get(\"{}\"): the key is not set", key));
    a->value = copy_out(*v);
    a->value_size = v->size();
    a->value_deleter_callback = &delete_value;
    return nullptr;
  });
}

}  // namespace hhlo::detail
