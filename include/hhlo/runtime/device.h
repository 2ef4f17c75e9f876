// PJRT devices, borrowed from the client that owns them (PJRT_Device_*, PJRT_DeviceDescription_*).
#pragma once

#include <memory>
#include <string>

namespace hhlo {

namespace detail {
struct ClientState;
}

/// A device of a client. A borrowed view: cheap to copy, valid as long as any copy exists (it keeps
/// the client's state alive).
class Device {
 public:
  /// Global device id (PJRT_DeviceDescription_Id).
  int id() const;
  /// Device kind, e.g. "cpu" or "NVIDIA H200" (PJRT_DeviceDescription_Kind).
  std::string kind() const;
  /// Local hardware id, or -1 when the platform has none (PJRT_Device_LocalHardwareId).
  int local_hardware_id() const;
  /// Verbose description (PJRT_DeviceDescription_DebugString).
  std::string debug_string() const;
  /// Short description, e.g. "CpuDevice(id=0)" (PJRT_DeviceDescription_ToString).
  std::string to_string() const;
  /// True when this process can address the device (PJRT_Device_IsAddressable).
  bool is_addressable() const;
  bool operator==(const Device& o) const { return handle_ == o.handle_; }

  /// Internal.
  Device(std::shared_ptr<const detail::ClientState> client, void* device)
      : client_(std::move(client)), handle_(device) {}
  void* handle() const { return handle_; }
  const std::shared_ptr<const detail::ClientState>& client_state() const { return client_; }

 private:
  std::shared_ptr<const detail::ClientState> client_;
  void* handle_;
};

}  // namespace hhlo
