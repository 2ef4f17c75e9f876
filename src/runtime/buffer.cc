#include "hhlo/runtime/buffer.h"

#include <fmt/format.h>

#include <cstddef>
#include <cstring>

#include "pjrt.h"

namespace hhlo {

using detail::args;

Buffer::Buffer(std::shared_ptr<const detail::ClientState> client, void* buffer)
    : handle_(detail::owned_by<PJRT_Buffer>(std::move(client), buffer)) {}

static PJRT_Buffer* buf(const detail::PjrtHandle<PJRT_Buffer>& h) {
  if (!h.get()) throw Error("Buffer: no buffer (default-constructed or moved-from)");
  return h.get();
}

Dims Buffer::dims() const {
  auto a = args<PJRT_Buffer_Dimensions_Args>();
  a.buffer = buf(handle_);
  HHLO_PJRT_CALL(handle_.api(), PJRT_Buffer_Dimensions, a);
  return Dims(a.dims, a.dims + a.num_dims);
}

DType Buffer::dtype() const {
  auto a = args<PJRT_Buffer_ElementType_Args>();
  a.buffer = buf(handle_);
  HHLO_PJRT_CALL(handle_.api(), PJRT_Buffer_ElementType, a);
  return detail::from_pjrt(a.type);
}

int64_t Buffer::on_device_size() const {
  auto a = args<PJRT_Buffer_OnDeviceSizeInBytes_Args>();
  a.buffer = buf(handle_);
  HHLO_PJRT_CALL(handle_.api(), PJRT_Buffer_OnDeviceSizeInBytes, a);
  return static_cast<int64_t>(a.on_device_size_in_bytes);
}

Device Buffer::device() const {
  auto a = args<PJRT_Buffer_Device_Args>();
  a.buffer = buf(handle_);
  HHLO_PJRT_CALL(handle_.api(), PJRT_Buffer_Device, a);
  return Device(client_state(), a.device);
}

Event Buffer::to_host_async(void* dst, std::size_t size) const {
  TensorType t = type();
  if (static_cast<int64_t>(size) != t.byte_size())
    throw Error(fmt::format("Buffer::to_host: destination has {} bytes, buffer {} needs {}", size,
                            t.to_string(), t.byte_size()));
  auto a = args<PJRT_Buffer_ToHostBuffer_Args>();
  a.src = buf(handle_);
  a.dst = dst;
  a.dst_size = size;
  HHLO_PJRT_CALL(handle_.api(), PJRT_Buffer_ToHostBuffer, a);
  return Event(client_state(), a.event);
}

/// True when `b`'s bytes lie in host memory as `t`'s dense row-major array: on a CPU device
/// (PJRT_Buffer_IsOnCpu), the default descending layout without tiles
/// (PJRT_Buffer_GetMemoryLayout) and exactly t.byte_size() bytes (no sub-byte packing or padding).
/// False also when the plugin lacks one of these functions or refuses one.
static bool dense_in_host_memory(const detail::PjrtHandle<PJRT_Buffer>& b, const TensorType& t) {
  const PJRT_Api* api = b.api();
  std::size_t last = offsetof(PJRT_Api, PJRT_Buffer_DecreaseExternalReferenceCount);
  if (api->struct_size < last + sizeof(void*) || !api->PJRT_Buffer_IsOnCpu ||
      !api->PJRT_Buffer_GetMemoryLayout || !api->PJRT_Buffer_UnsafePointer ||
      !api->PJRT_Buffer_IncreaseExternalReferenceCount ||
      !api->PJRT_Buffer_DecreaseExternalReferenceCount)
    return false;
  auto succeeded = [api](PJRT_Error* error) {
    detail::discard_error(api, error);
    return error == nullptr;
  };
  auto on_cpu = args<PJRT_Buffer_IsOnCpu_Args>();
  on_cpu.buffer = b.get();
  if (!succeeded(api->PJRT_Buffer_IsOnCpu(&on_cpu)) || !on_cpu.is_on_cpu) return false;
  auto size = args<PJRT_Buffer_OnDeviceSizeInBytes_Args>();
  size.buffer = b.get();
  if (!succeeded(api->PJRT_Buffer_OnDeviceSizeInBytes(&size)) ||
      static_cast<int64_t>(size.on_device_size_in_bytes) != t.byte_size())
    return false;
  auto layout = args<PJRT_Buffer_GetMemoryLayout_Args>();
  layout.buffer = b.get();
  if (!succeeded(api->PJRT_Buffer_GetMemoryLayout(&layout)) ||
      layout.layout.type != PJRT_Buffer_MemoryLayout_Type_Tiled)
    return false;
  const PJRT_Buffer_MemoryLayout_Tiled& tiled = layout.layout.tiled;
  std::size_t rank = t.dims.size();
  if (tiled.num_tiles != 0 || tiled.minor_to_major_size != rank) return false;
  for (std::size_t i = 0; i < rank; ++i)
    if (tiled.minor_to_major[i] != static_cast<int64_t>(rank - 1 - i)) return false;
  return true;
}

/// Copies `b` (ready) into `dst` from its host memory on the calling thread, holding an external
/// reference meanwhile (PJRT_Buffer_IncreaseExternalReferenceCount, PJRT_Buffer_UnsafePointer).
static void copy_from_host_memory(const detail::PjrtHandle<PJRT_Buffer>& b, void* dst,
                                  std::size_t size) {
  auto hold = args<PJRT_Buffer_IncreaseExternalReferenceCount_Args>();
  hold.buffer = b.get();
  HHLO_PJRT_CALL(b.api(), PJRT_Buffer_IncreaseExternalReferenceCount, hold);
  auto release = args<PJRT_Buffer_DecreaseExternalReferenceCount_Args>();
  release.buffer = b.get();
  try {
    auto ptr = args<PJRT_Buffer_UnsafePointer_Args>();
    ptr.buffer = b.get();
    HHLO_PJRT_CALL(b.api(), PJRT_Buffer_UnsafePointer, ptr);
    std::memcpy(dst, reinterpret_cast<const void*>(ptr.buffer_pointer), size);
  } catch (...) {
    detail::discard_error(b.api(), b.api()->PJRT_Buffer_DecreaseExternalReferenceCount(&release));
    throw;
  }
  HHLO_PJRT_CALL(b.api(), PJRT_Buffer_DecreaseExternalReferenceCount, release);
}

Array Buffer::to_host() const {
  if (is_deleted())
    throw Error("Buffer::to_host: the buffer was deleted or donated to an execution");
  Array out(type());
  if (out.byte_size() == 0) return out;
  if (dense_in_host_memory(handle_, out.type())) {
    ready_event().await();  // the computation's error, if any, surfaces here
    copy_from_host_memory(handle_, out.data(), out.byte_size());
    return out;
  }
  to_host_async(out.data(), out.byte_size()).await();
  return out;
}

Event Buffer::ready_event() const {
  auto a = args<PJRT_Buffer_ReadyEvent_Args>();
  a.buffer = buf(handle_);
  HHLO_PJRT_CALL(handle_.api(), PJRT_Buffer_ReadyEvent, a);
  return Event(client_state(), a.event);
}

Buffer Buffer::copy_to_device(const Device& device) const {
  if (device.client_state() != client_state())
    throw Error("Buffer::copy_to_device: the device belongs to another client");
  auto a = args<PJRT_Buffer_CopyToDevice_Args>();
  a.buffer = buf(handle_);
  a.dst_device = static_cast<PJRT_Device*>(device.handle());
  HHLO_PJRT_CALL(handle_.api(), PJRT_Buffer_CopyToDevice, a);
  return Buffer(client_state(), a.dst_buffer);
}

void Buffer::delete_data() {
  auto a = args<PJRT_Buffer_Delete_Args>();
  a.buffer = buf(handle_);
  HHLO_PJRT_CALL(handle_.api(), PJRT_Buffer_Delete, a);
}

bool Buffer::is_deleted() const {
  auto a = args<PJRT_Buffer_IsDeleted_Args>();
  a.buffer = buf(handle_);
  HHLO_PJRT_CALL(handle_.api(), PJRT_Buffer_IsDeleted, a);
  return a.is_deleted;
}

}  // namespace hhlo
