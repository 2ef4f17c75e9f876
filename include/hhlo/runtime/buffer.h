// Device buffers (PJRT_Buffer_*).
#pragma once

#include <cstdint>
#include <memory>

#include "hhlo/core/array.h"
#include "hhlo/runtime/device.h"
#include "hhlo/runtime/event.h"
#include "hhlo/runtime/pjrt_handle.h"

namespace hhlo {

/// A move-only owner of a PJRT_Buffer: an array on a device. Keeps its client alive.
class Buffer {
 public:
  Buffer() = default;

  bool valid() const { return handle_.get() != nullptr; }
  /// Dimension sizes (PJRT_Buffer_Dimensions).
  Dims dims() const;
  /// Element type (PJRT_Buffer_ElementType); throws hhlo::Error for a type HHLO-C++ lacks.
  DType dtype() const;
  TensorType type() const { return {dtype(), dims()}; }
  /// Bytes the buffer occupies on the device (PJRT_Buffer_OnDeviceSizeInBytes).
  int64_t on_device_size() const;
  /// The device holding the buffer (PJRT_Buffer_Device).
  Device device() const;
  /// Copies to a new host Array, blocking until done. A buffer in host memory (a CPU device,
  /// PJRT_Buffer_IsOnCpu) in the dense row-major layout (PJRT_Buffer_GetMemoryLayout) is read on
  /// the calling thread once ready (PJRT_Buffer_ReadyEvent + await, then PJRT_Buffer_UnsafePointer
  /// under an external reference): the CPU plugin's PJRT_Buffer_ToHostBuffer hands every copy to
  /// one of its threads, 23-26 us a call on this project's machine (docs/facts.md). Any other
  /// buffer goes through PJRT_Buffer_ToHostBuffer + await. Throws hhlo::Error when the buffer was
  /// deleted or donated, hhlo::PjrtError when the computation that defines it failed.
  Array to_host() const;
  /// Copies into caller memory of exactly `size` bytes (dense row-major); returns the event of
  /// the copy without waiting. Throws hhlo::Error when `size` differs from the buffer's byte size.
  Event to_host_async(void* dst, std::size_t size) const;
  /// Event that is ready when the buffer's data is (PJRT_Buffer_ReadyEvent).
  Event ready_event() const;
  /// Copies to another device of the same client (PJRT_Buffer_CopyToDevice).
  Buffer copy_to_device(const Device& device) const;
  /// Frees the device memory now; the handle stays and reports is_deleted() (PJRT_Buffer_Delete).
  void delete_data();
  /// True after delete_data() or after the buffer was donated to an execution
  /// (PJRT_Buffer_IsDeleted).
  bool is_deleted() const;

  /// Internal: takes ownership of a PJRT_Buffer*.
  Buffer(std::shared_ptr<const detail::ClientState> client, void* buffer);
  void* handle() const { return handle_.get(); }
  const std::shared_ptr<const detail::ClientState>& client_state() const { return handle_.keep(); }

 private:
  detail::PjrtHandle<PJRT_Buffer> handle_;
};

}  // namespace hhlo
