// The host end of QEMU's ivshmem-doorbell device (docs/vp-device.md): npusim is the ivshmem server itself
// (Debian ships none) and also its peer 0. It creates the shared-memory file that becomes the guest's BAR2,
// listens on a unix socket, and tells the one client QEMU that connects (id 1) the protocol version, its
// id, the memory, peer 0's eventfd (the guest's doorbell to us) and the client's own eventfd (written by
// us, it raises the guest's MSI-X vector 0). The messages follow QEMU's docs/specs/ivshmem-spec.rst.
// It serves one client, one vector each way; it neither trusts nor reads anything the client sends (the
// protocol is one-way), and it knows nothing of the NPU or of the mailbox laid over the memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "npu/common/result.h"

namespace npu::vp {

class IvshmemServer {
 public:
  // Creates `shm_path` (truncated to `shm_bytes`, sparse; replaced if it exists) and maps it, then binds and
  // listens on `socket_path` (a stale socket file is replaced). Errors name the path and the failing call.
  static Result<std::unique_ptr<IvshmemServer>> create(const std::string& socket_path,
                                                       const std::string& shm_path, uint64_t shm_bytes);
  // Closes every descriptor, unmaps the memory and removes the socket and shared-memory files.
  ~IvshmemServer();
  IvshmemServer(const IvshmemServer&) = delete;
  IvshmemServer& operator=(const IvshmemServer&) = delete;

  // Waits for a client (QEMU) and sends it the whole setup. Returns early with an error when `stop_fd`
  // (>= 0) becomes readable first ("stopped") or a send fails.
  Result<void> accept_client(int stop_fd = -1);

  uint8_t* memory() const { return memory_; }
  uint64_t memory_bytes() const { return bytes_; }
  // Readable when the guest rang peer 0's vector 0 (drain it with take_doorbell()).
  int doorbell_fd() const { return doorbell_fd_; }
  // The connection: readable (end of file) once QEMU is gone; -1 before accept_client().
  int client_fd() const { return client_fd_; }
  // Reads and discards the doorbell's count; true when it had been rung.
  bool take_doorbell();
  // Raises the guest's MSI-X vector 0 (writes 1 to the client's eventfd).
  void interrupt_guest();
  // True once the client has closed the connection (checked without blocking).
  bool client_gone();
  const std::string& socket_path() const { return socket_path_; }
  const std::string& shm_path() const { return shm_path_; }

  static constexpr int64_t kClientId = 1;
  static constexpr int64_t kServerPeerId = 0;

 private:
  IvshmemServer() = default;
  std::string socket_path_, shm_path_;
  int listen_fd_ = -1, client_fd_ = -1, shm_fd_ = -1;
  int doorbell_fd_ = -1;  // peer 0, vector 0: QEMU writes it when the guest rings us
  int guest_fd_ = -1;     // client 1, vector 0: we write it to interrupt the guest
  uint8_t* memory_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace npu::vp
