// For tests that play the outside world against the tuner: find the processes the tuner started
// (its compilers, its workers) by walking /proc, so that a test can send them a real signal.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace cutune::testing {

// Every live descendant of `root` whose command name (/proc/PID/comm, at most 15 characters)
// equals `name`.
inline std::vector<pid_t> descendants_named(pid_t root, const std::string& name) {
  std::map<pid_t, pid_t> parent;
  std::map<pid_t, std::string> comm;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string file = entry.path().filename();
    if (file.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text;
    if (!std::getline(stat, text)) continue;  // gone meanwhile
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last
    // ')'.
    const auto close = text.rfind(')');
    const auto open = text.find('(');
    if (close == std::string::npos || open == std::string::npos) continue;
    char state = 0;
    pid_t ppid = 0;
    if (std::sscanf(text.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || state == 'Z') {
      continue;
    }
    const pid_t pid = std::stoi(file);
    parent[pid] = ppid;
    comm[pid] = text.substr(open + 1, close - open - 1);
  }
  std::vector<pid_t> found;
  for (const auto& [pid, name_of] : comm) {
    if (name_of != name) continue;
    for (pid_t up = parent[pid]; up > 1; up = parent.count(up) ? parent[up] : 0) {
      if (up == root) {
        found.push_back(pid);
        break;
      }
    }
  }
  return found;
}

// Waits up to `limit` for a descendant of this process named `name` and sends it `signal`;
// returns how many it signalled (0 when none appeared).
inline int signal_descendant(const std::string& name, int signal, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::vector<pid_t> found = descendants_named(::getpid(), name);
    for (pid_t pid : found) ::kill(pid, signal);
    if (!found.empty()) return static_cast<int>(found.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

}  // namespace cutune::testing
