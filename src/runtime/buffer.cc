#include "hhlo/runtime/buffer.h"

#include <fmt/format.h>

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

Array Buffer::to_host() const {
  if (is_deleted())
    throw Error("Buffer::to_host: the buffer was deleted or donated to an execution");
  Array out(type());
  if (out.byte_size() == 0) return out;
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
