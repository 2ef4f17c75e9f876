// The example CPU kernel library's public face: the user-data type its `scale` handler reads and
// the C functions it exports besides its XLA FFI handler symbols (see kernels.cc).
#pragma once

#include <cstdint>

#include "xla/ffi/api/c_api.h"

/// User data of hhlo_example_scale (ExecuteOptions::user_data): out = factor * in, and `calls`
/// counts the executions that read it.
struct HhloExampleScale {
  /// XLA FFI type id (ffi::UserData<T> requires T::id), set by
  /// hhlo_example_set_scale_type_id with the id from hhlo::register_custom_call_type.
  static XLA_FFI_TypeId id;
  float factor = 1.0f;
  int64_t calls = 0;
};

extern "C" {
/// Sets HhloExampleScale::id inside the library (call once, before executing).
void hhlo_example_set_scale_type_id(int64_t type_id);
}
