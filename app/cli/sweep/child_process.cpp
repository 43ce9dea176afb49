#include "child_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kvw::cli {

namespace {

// The exit status of a child whose exec failed: the shell's "command not found".
constexpr int kExecFailed = 127;

[[noreturn]] void exec_or_exit(const std::vector<std::string>& argv) {
    std::vector<char*> words;
    for (const std::string& w : argv) words.push_back(const_cast<char*>(w.c_str()));
    words.push_back(nullptr);
    execvp(words[0], words.data());
    const std::string message = "cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, message.data(), message.size());
    _exit(kExecFailed);
}

}  // namespace

std::filesystem::path self_program() { return std::filesystem::read_symlink("/proc/self/exe"); }

int spawn_logged(const std::vector<std::string>& argv, const std::filesystem::path& log) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw std::runtime_error("cannot write " + log.string() + ": " + std::strerror(errno));
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        exec_or_exit(argv);
    }
    ::close(fd);
    if (pid < 0) throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
    return int(pid);
}

ProgramOutput run_program(const std::vector<std::string>& argv) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("cannot make a pipe: ") + std::strerror(errno));
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipe_fds[1], STDOUT_FILENO);
        dup2(pipe_fds[1], STDERR_FILENO);
        exec_or_exit(argv);
    }
    ::close(pipe_fds[1]);
    if (pid < 0) {
        ::close(pipe_fds[0]);
        throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
    }
    ProgramOutput out;
    char buffer[4096];
    for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        out.output.append(buffer, size_t(n));
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    out.ran = out.status != kExecFailed;
    return out;
}

}  // namespace kvw::cli
