// Private to the runtime: PJRT_Client_Create's key-value callbacks over an hhlo::KeyValueStore
// (the store is the callbacks' user_arg).
#pragma once

#include "hhlo/runtime/key_value_store.h"
#include "pjrt_abi.h"

namespace hhlo::detail {

/// PJRT_KeyValueGetCallback: store->get(key, timeout_in_ms) (a negative timeout waits
/// "forever", taken as 24 hours); the value is a new[] copy freed by value_deleter_callback.
/// Any exception becomes a PJRT error made by args->callback_error: DEADLINE_EXCEEDED for
/// KeyValueTimeout, UNKNOWN otherwise, the message "KeyValueStore::get(\"KEY\"): WHAT".
PJRT_Error* kv_get(PJRT_KeyValueGetCallback_Args* args);
/// PJRT_KeyValuePutCallback: store->set(key, value); exceptions as kv_get.
PJRT_Error* kv_put(PJRT_KeyValuePutCallback_Args* args);
/// PJRT_KeyValueTryGetCallback: store->try_get(key); NOT_FOUND naming the key when absent,
/// exceptions as kv_get.
PJRT_Error* kv_try_get(PJRT_KeyValueTryGetCallback_Args* args);

}  // namespace hhlo::detail
