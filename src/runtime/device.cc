#include "hhlo/runtime/device.h"

#include "pjrt.h"

namespace hhlo {

using detail::args;

namespace {
PJRT_DeviceDescription* description(const detail::ClientState& c, void* device) {
  auto a = args<PJRT_Device_GetDescription_Args>();
  a.device = static_cast<PJRT_Device*>(device);
  HHLO_PJRT_CALL(c.api, PJRT_Device_GetDescription, a);
  return a.device_description;
}
}  // namespace

int Device::id() const {
  auto a = args<PJRT_DeviceDescription_Id_Args>();
  a.device_description = description(*client_, handle_);
  HHLO_PJRT_CALL(client_->api, PJRT_DeviceDescription_Id, a);
  return a.id;
}

std::string Device::kind() const {
  auto a = args<PJRT_DeviceDescription_Kind_Args>();
  a.device_description = description(*client_, handle_);
  HHLO_PJRT_CALL(client_->api, PJRT_DeviceDescription_Kind, a);
  return {a.device_kind, a.device_kind_size};
}

int Device::local_hardware_id() const {
  auto a = args<PJRT_Device_LocalHardwareId_Args>();
  a.device = static_cast<PJRT_Device*>(handle_);
  HHLO_PJRT_CALL(client_->api, PJRT_Device_LocalHardwareId, a);
  return a.local_hardware_id;
}

std::string Device::debug_string() const {
  auto a = args<PJRT_DeviceDescription_DebugString_Args>();
  a.device_description = description(*client_, handle_);
  HHLO_PJRT_CALL(client_->api, PJRT_DeviceDescription_DebugString, a);
  return {a.debug_string, a.debug_string_size};
}

std::string Device::to_string() const {
  auto a = args<PJRT_DeviceDescription_ToString_Args>();
  a.device_description = description(*client_, handle_);
  HHLO_PJRT_CALL(client_->api, PJRT_DeviceDescription_ToString, a);
  return {a.to_string, a.to_string_size};
}

bool Device::is_addressable() const {
  auto a = args<PJRT_Device_IsAddressable_Args>();
  a.device = static_cast<PJRT_Device*>(handle_);
  HHLO_PJRT_CALL(client_->api, PJRT_Device_IsAddressable, a);
  return a.is_addressable;
}

}  // namespace hhlo
