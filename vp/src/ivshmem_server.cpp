#include "npu/vp/ivshmem_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace npu::vp {
namespace {

std::string sys_error(const std::string& what) { return what + ": " + std::strerror(errno); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// One protocol message: a little-endian int64 (x86 is little-endian), with `fd` attached when >= 0.
bool send_message(int sock, int64_t value, int fd) {
  struct iovec iov {
    &value, sizeof value
  };
  struct msghdr msg {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  for (;;) {
    const ssize_t n = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(sizeof value)) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

}  // namespace

Result<std::unique_ptr<IvshmemServer>> IvshmemServer::create(const std::string& socket_path,
                                                             const std::string& shm_path,
                                                             uint64_t shm_bytes) {
  std::unique_ptr<IvshmemServer> s(new IvshmemServer());
  s->bytes_ = shm_bytes;
  // The file first: a socket QEMU can connect to must already have its memory.
  s->shm_fd_ = ::open(shm_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (s->shm_fd_ < 0)
    return make_error(sys_error(shm_path + ": --shm: cannot create the shared-memory file"));
  s->shm_path_ = shm_path;
  if (::ftruncate(s->shm_fd_, static_cast<off_t>(shm_bytes)) != 0)
    return make_error(sys_error(shm_path + ": --shm: cannot size the shared-memory file to " +
                                std::to_string(shm_bytes) + " bytes"));
  void* p = ::mmap(nullptr, shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->shm_fd_, 0);
  if (p == MAP_FAILED) return make_error(sys_error(shm_path + ": --shm: cannot map the shared-memory file"));
  s->memory_ = static_cast<uint8_t*>(p);

  s->doorbell_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  s->guest_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (s->doorbell_fd_ < 0 || s->guest_fd_ < 0) return make_error(sys_error("eventfd"));

  struct sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  if (socket_path.empty() || socket_path.size() >= sizeof addr.sun_path)
    return make_error(socket_path + ": --socket: a unix socket path must be 1 to " +
                      std::to_string(sizeof addr.sun_path - 1) + " characters");
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  s->listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s->listen_fd_ < 0) return make_error(sys_error(socket_path + ": --socket: socket"));
  // A socket file left by an earlier run is replaced; any other kind of file is not ours to remove.
  struct stat st {};
  if (::lstat(socket_path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return make_error(socket_path + ": --socket: exists and is not a socket (not replaced)");
    ::unlink(socket_path.c_str());
  }
  if (::bind(s->listen_fd_, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) != 0)
    return make_error(sys_error(socket_path + ": --socket: cannot bind"));
  s->socket_path_ = socket_path;
  if (::listen(s->listen_fd_, 1) != 0)
    return make_error(sys_error(socket_path + ": --socket: cannot listen"));
  return s;
}

IvshmemServer::~IvshmemServer() {
  close_fd(client_fd_);
  close_fd(listen_fd_);
  close_fd(doorbell_fd_);
  close_fd(guest_fd_);
  if (memory_) ::munmap(memory_, bytes_);
  close_fd(shm_fd_);
  if (!socket_path_.empty()) ::unlink(socket_path_.c_str());
  if (!shm_path_.empty()) ::unlink(shm_path_.c_str());
}

Result<void> IvshmemServer::accept_client(int stop_fd) {
  struct pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd, POLLIN, 0}};
  for (;;) {
    const int n = ::poll(fds, stop_fd >= 0 ? 2 : 1, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(sys_error(socket_path_ + ": poll"));
    if (stop_fd >= 0 && (fds[1].revents & POLLIN)) return make_error("stopped before a client connected");
    if (fds[0].revents & POLLIN) break;
  }
  client_fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (client_fd_ < 0) return make_error(sys_error(socket_path_ + ": accept"));
  // Version 0; the client's id; the memory; peer 0's vector (interrupting us); the client's own vector.
  const bool sent = send_message(client_fd_, 0, -1) && send_message(client_fd_, kClientId, -1) &&
                    send_message(client_fd_, -1, shm_fd_) &&
                    send_message(client_fd_, kServerPeerId, doorbell_fd_) &&
                    send_message(client_fd_, kClientId, guest_fd_);
  if (!sent) return make_error(sys_error(socket_path_ + ": sending the ivshmem setup to the client"));
  return {};
}

bool IvshmemServer::take_doorbell() {
  uint64_t count = 0;
  return ::read(doorbell_fd_, &count, sizeof count) == static_cast<ssize_t>(sizeof count) && count > 0;
}

void IvshmemServer::interrupt_guest() {
  const uint64_t one = 1;
  // Non-blocking: a counter that is full (the guest never read it) already says "interrupt".
  (void)!::write(guest_fd_, &one, sizeof one);
}

bool IvshmemServer::client_gone() {
  if (client_fd_ < 0) return true;
  struct pollfd p {
    client_fd_, POLLIN, 0
  };
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLHUP | POLLERR)) return true;
  // The protocol is one-way: anything readable is the end of file (or bytes we drop).
  char buf[64];
  const ssize_t n = ::recv(client_fd_, buf, sizeof buf, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

}  // namespace npu::vp
