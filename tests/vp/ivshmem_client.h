// A test's stand-in for QEMU's ivshmem-doorbell device and the guest driver's mailbox accesses: connects to
// an ivshmem server's socket, takes the setup messages (version, id, the memory, peer 0's doorbell eventfd,
// its own interrupt eventfd), maps BAR2, and performs requests of vp/abi/npusim_vp.h.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "npusim_vp.h"

namespace npu::test {

// What QEMU's ivshmem-doorbell does with the server's messages, and the guest driver's mailbox accesses.
class IvshmemClient {
 public:
  // Connects and takes the setup; failures are recorded in `error`.
  explicit IvshmemClient(const std::string& socket_path) {
    sock_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
    // The server may still be starting (a process of its own): retry for up to 30 s.
    for (int tries = 0;; ++tries) {
      if (::connect(sock_, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) == 0) break;
      if (tries == 3000 || (errno != ENOENT && errno != ECONNREFUSED)) {
        error = "connect " + socket_path + ": " + std::string(std::strerror(errno));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const int64_t expect[] = {0, 1, -1, 0, 1};
    int* fd_for[] = {nullptr, nullptr, &shm_fd_, &doorbell_fd_, &irq_fd_};
    for (int i = 0; i < 5; ++i) {
      int fd = -1;
      int64_t v = 0;
      if (!receive(&v, &fd) || v != expect[i] || (fd_for[i] != nullptr) != (fd >= 0)) {
        error =
            "setup message " + std::to_string(i) + ": got " + std::to_string(v) + " fd " + std::to_string(fd);
        return;
      }
      if (fd_for[i]) *fd_for[i] = fd;
    }
    struct stat st {};
    ::fstat(shm_fd_, &st);
    bytes_ = static_cast<uint64_t>(st.st_size);
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd_, 0);
    if (p == MAP_FAILED) {
      error = "mmap";
      return;
    }
    bar2_ = static_cast<uint8_t*>(p);
    mb_ = reinterpret_cast<npusim_vp_mailbox*>(bar2_ + bytes_ - NPUSIM_VP_MAILBOX_BYTES);
  }
  ~IvshmemClient() {
    if (bar2_) ::munmap(bar2_, bytes_);
    disconnect();
    for (int fd : {shm_fd_, doorbell_fd_, irq_fd_})
      if (fd >= 0) ::close(fd);
  }
  void disconnect() {
    if (sock_ >= 0) ::close(sock_);
    sock_ = -1;
  }

  uint8_t* bar2() { return bar2_; }
  uint64_t bar2_bytes() const { return bytes_; }
  npusim_vp_mailbox* mailbox() { return mb_; }

  // Waits (up to 10 s of wall time) for the device to say READY.
  bool wait_ready() {
    for (int i = 0; i < 10000; ++i) {
      if (__atomic_load_n(&mb_->magic, __ATOMIC_ACQUIRE) == NPUSIM_VP_MAGIC &&
          __atomic_load_n(&mb_->state, __ATOMIC_ACQUIRE) == NPUSIM_VP_STATE_READY)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }
  // One request: fields, then req_seq, then the doorbell (peer 0, vector 0); waits for ack_seq.
  // Returns the status; *value receives the device's value.
  // Posts a request and rings the doorbell without waiting; returns its sequence number.
  uint32_t post(uint32_t op, uint32_t offset, uint32_t value) {
    __atomic_store_n(&mb_->op, op, __ATOMIC_RELAXED);
    __atomic_store_n(&mb_->offset, offset, __ATOMIC_RELAXED);
    __atomic_store_n(&mb_->value, value, __ATOMIC_RELAXED);
    const uint32_t seq = __atomic_load_n(&mb_->req_seq, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&mb_->req_seq, seq, __ATOMIC_RELEASE);
    const uint64_t one = 1;
    EXPECT_EQ(::write(doorbell_fd_, &one, sizeof one), 8);
    return seq;
  }
  uint32_t request(uint32_t op, uint32_t offset, uint32_t* value) {
    const uint32_t seq = post(op, offset, *value);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (__atomic_load_n(&mb_->ack_seq, __ATOMIC_ACQUIRE) != seq) {
      if (__atomic_load_n(&mb_->state, __ATOMIC_ACQUIRE) == NPUSIM_VP_STATE_STOPPED) {
        ADD_FAILURE() << "request " << seq << " (op " << op << "): the device side stopped";
        return ~0u;
      }
      if (std::chrono::steady_clock::now() > until) {
        ADD_FAILURE() << "request " << seq << " (op " << op << ") not answered in 10 s";
        return ~0u;
      }
      std::this_thread::yield();
    }
    *value = __atomic_load_n(&mb_->value, __ATOMIC_RELAXED);
    return __atomic_load_n(&mb_->status, __ATOMIC_RELAXED);
  }
  uint32_t read(uint32_t offset) {
    uint32_t v = 0;
    EXPECT_EQ(request(NPUSIM_VP_OP_READ32, offset, &v), static_cast<uint32_t>(NPUSIM_VP_OK)) << offset;
    return v;
  }
  void write(uint32_t offset, uint32_t v) {
    EXPECT_EQ(request(NPUSIM_VP_OP_WRITE32, offset, &v), static_cast<uint32_t>(NPUSIM_VP_OK)) << offset;
  }
  void run() {
    uint32_t v = 0;
    EXPECT_EQ(request(NPUSIM_VP_OP_RUN, 0, &v), static_cast<uint32_t>(NPUSIM_VP_OK));
  }
  // Waits up to `ms` for MSI-X vector 0 (the guest's eventfd); returns how many were raised.
  uint64_t wait_interrupt(int ms) {
    struct pollfd p {
      irq_fd_, POLLIN, 0
    };
    if (::poll(&p, 1, ms) <= 0) return 0;
    uint64_t n = 0;
    return ::read(irq_fd_, &n, sizeof n) == 8 ? n : 0;
  }

  std::string error;

 private:
  bool receive(int64_t* value, int* fd) {
    struct iovec iov {
      value, sizeof *value
    };
    alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    struct msghdr msg {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(sock_, &msg, MSG_CMSG_CLOEXEC) != static_cast<ssize_t>(sizeof *value)) return false;
    *fd = -1;
    for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        std::memcpy(fd, CMSG_DATA(c), sizeof *fd);
    return true;
  }
  int sock_ = -1, shm_fd_ = -1, doorbell_fd_ = -1, irq_fd_ = -1;
  uint8_t* bar2_ = nullptr;
  uint64_t bytes_ = 0;
  npusim_vp_mailbox* mb_ = nullptr;
};

}  // namespace npu::test
