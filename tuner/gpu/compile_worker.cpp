// Compiling in helper processes (compile_worker.hpp). Messages are frames: an 8-byte
// length, then the bytes. A request is a JSON header (program name, architecture,
// name expressions) and the source; a reply a JSON header (ok, lowered names, log,
// or the error and its log) and the CUBIN.
#include "tuner/gpu/compile_worker.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "errors.hpp"

extern char** environ;

namespace scantune::tuner {
namespace {

constexpr const char* kGreeting = "scantune compile-worker 1";

// Sends all of [data, data + size); false once the other end is gone.
bool send_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t k = ::send(fd, p, size, MSG_NOSIGNAL); // no SIGPIPE if the peer died
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    size -= static_cast<std::size_t>(k);
  }
  return true;
}

bool recv_all(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t k = ::recv(fd, p, size, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    size -= static_cast<std::size_t>(k);
  }
  return true;
}

bool send_frame(int fd, const std::string& bytes) {
  const std::uint64_t n = bytes.size();
  return send_all(fd, &n, sizeof n) && send_all(fd, bytes.data(), bytes.size());
}

// The next frame, or false at the end of input.
bool recv_frame(int fd, std::string& bytes) {
  std::uint64_t n = 0;
  if (!recv_all(fd, &n, sizeof n)) return false;
  bytes.resize(n);
  return recv_all(fd, bytes.data(), n);
}

[[noreturn]] void gone(pid_t pid) {
  detail::fail<Error>("the compile worker (pid {}) stopped answering", pid);
}

} // namespace

CompileWorker::CompileWorker(const std::string& exe) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    detail::fail<Error>("compile worker: socketpair: {}", std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 0); // dup2 clears close-on-exec
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  // Ctrl-C reaches the terminal's whole process group: the helper starts with SIGINT
  // blocked, so it finishes the compile in hand and the tuner, which handles the
  // interrupt, stops it by closing the socket (a helper killed mid-compile failed that
  // kernel, and the tuner stored it as a compile error).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t interrupt;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  posix_spawnattr_setsigmask(&attr, &interrupt);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  std::string arg0 = exe, arg1 = "compile-worker";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  const int rc = ::posix_spawn(&pid_, exe.c_str(), &actions, &attr, argv, environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  fd_ = fds[0];
  if (rc != 0) {
    ::close(fd_);
    fd_ = -1;
    pid_ = -1;
    detail::fail<Error>("compile worker: cannot start {}: {}", exe, std::strerror(rc));
  }
  std::string hello;
  if (!recv_frame(fd_, hello) || hello != kGreeting) {
    const pid_t pid = pid_;
    stop(); // the constructor throws: no destructor runs
    detail::fail<Error>("compile worker: {} (pid {}) is not a compile worker", exe, pid);
  }
}

CompileWorker::~CompileWorker() {
  stop();
}

void CompileWorker::stop() {
  if (fd_ >= 0) ::close(fd_); // the helper reads the end of input and exits
  fd_ = -1;
  if (pid_ > 0) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
}

detail::CompiledProgram CompileWorker::compile(const detail::GeneratedSource& gen, int arch) {
  const nlohmann::json request = {
      {"name", gen.name}, {"arch", arch}, {"names", gen.name_expressions.front()}};
  if (!send_frame(fd_, request.dump()) || !send_frame(fd_, gen.source)) gone(pid_);
  std::string header, cubin;
  if (!recv_frame(fd_, header) || !recv_frame(fd_, cubin)) gone(pid_);
  const nlohmann::json reply = nlohmann::json::parse(header);
  if (!reply.at("ok").get<bool>())
    throw detail::CompileError(reply.at("error").get<std::string>(),
                               reply.at("log").get<std::string>());
  detail::CompiledProgram out;
  out.cubin.assign(cubin.begin(), cubin.end());
  out.lowered_names = reply.at("lowered").get<std::vector<std::string>>();
  out.log = reply.at("log").get<std::string>();
  out.compile_ms = reply.at("ms").get<double>();
  return out;
}

int run_compile_worker(int fd) {
  if (!send_frame(fd, kGreeting)) return 1;
  std::string header, source;
  while (recv_frame(fd, header)) {
    if (!recv_frame(fd, source)) return 1;
    nlohmann::json reply;
    std::string cubin;
    try {
      const nlohmann::json request = nlohmann::json::parse(header);
      const detail::CompiledProgram prog = detail::nvrtc_compile(
          request.at("name").get<std::string>(), source,
          request.at("names").get<std::vector<std::string>>(), request.at("arch").get<int>());
      reply = {{"ok", true},
               {"lowered", prog.lowered_names},
               {"log", prog.log},
               {"ms", prog.compile_ms}};
      cubin.assign(prog.cubin.begin(), prog.cubin.end());
    } catch (const Error& e) {
      reply = {{"ok", false}, {"error", e.what()}, {"log", e.log()}};
    } catch (const std::exception& e) {
      reply = {{"ok", false}, {"error", e.what()}, {"log", ""}};
    }
    if (!send_frame(fd, reply.dump()) || !send_frame(fd, cubin)) return 1;
  }
  return 0;
}

} // namespace scantune::tuner
