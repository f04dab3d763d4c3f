#include "starvation.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace cutune::eval {
namespace {

double ticks_per_second() {
  static const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return ticks > 0 ? ticks : 100.0;
}

// Idle and iowait CPU seconds of the whole machine since boot (the "cpu" line of /proc/stat).
double machine_idle_seconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0;
  if (!(stat >> cpu >> user >> nice >> system >> idle >> iowait) || cpu != "cpu") return -1;
  return (idle + iowait) / ticks_per_second();
}

// The process group and CPU ticks (utime + stime + cutime + cstime) of one /proc/PID/stat;
// group -1 when it cannot be read.
struct ProcessTicks {
  long long group = -1;
  double ticks = 0;
};

ProcessTicks read_ticks(const std::filesystem::path& stat_file) {
  std::ifstream in(stat_file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // After the command, which is in parentheses and may hold spaces: state (field 3), ppid, pgrp
  // (5), ..., utime (14), stime, cutime, cstime (17).
  const auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 > text.size()) return {};
  std::istringstream fields(text.substr(close + 2));
  std::string state;
  long long ppid = 0, pgrp = 0;
  fields >> state >> ppid >> pgrp;
  std::string skip;
  for (int field = 6; field < 14; ++field) fields >> skip;
  double utime = 0, stime = 0, cutime = 0, cstime = 0;
  if (!(fields >> utime >> stime >> cutime >> cstime)) return {};
  return {pgrp, utime + stime + cutime + cstime};
}

// The run delay (nanoseconds runnable but not running) of every thread of one process; -1 when
// /proc does not have it (a kernel without schedstats, a process gone).
double wait_nanoseconds(const std::filesystem::path& process) {
  std::error_code error;
  double total = -1;
  for (const auto& task : std::filesystem::directory_iterator(process / "task", error)) {
    std::ifstream in(task.path() / "schedstat");
    double running = 0, waiting = 0;
    if (in >> running >> waiting) total = std::max(total, 0.0) + waiting;
  }
  return total;
}

}  // namespace

double process_wait_seconds(pid_t pid) {
  const double ns = wait_nanoseconds("/proc/" + std::to_string(pid));
  return ns < 0 ? -1 : ns / 1e9;
}

double group_wait_seconds(pid_t group) {
  double ns = -1;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_ticks(entry.path() / "stat").group != group) continue;
    if (const double waited = wait_nanoseconds(entry.path()); waited >= 0) {
      ns = std::max(ns, 0.0) + waited;
    }
  }
  return ns < 0 ? -1 : ns / 1e9;
}

double process_cpu_seconds(pid_t pid) {
  return read_ticks("/proc/" + std::to_string(pid) + "/stat").ticks / ticks_per_second();
}

double group_cpu_seconds(pid_t group) {
  double ticks = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const ProcessTicks process = read_ticks(entry.path() / "stat");
    if (process.group == group) ticks += process.ticks;
  }
  return ticks / ticks_per_second();
}

StarvationProbe::StarvationProbe()
    : start_(std::chrono::steady_clock::now()), idle_s_(machine_idle_seconds()) {}

Starvation StarvationProbe::judge(double cpu_s, double limit_s, double wait_s) const {
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double idle_now = machine_idle_seconds();
  if (idle_s_ < 0 || idle_now < 0 || wall_s <= 0) return {};
  const double idle_cores = (idle_now - idle_s_) / wall_s;
  char waited[64] = "";
  if (wait_s >= 0) std::snprintf(waited, sizeof waited, " and waited %.2f s for a core", wait_s);
  char text[200];
  std::snprintf(text, sizeof text,
                "it ran %.2f s of CPU in %.2f s%s; the machine had %.2f cores idle on average",
                cpu_s, wall_s, waited, idle_cores);
  // A process that slept (a kernel in sleep(), one blocked on a pipe) did not want the CPU: its
  // timeout is its own however busy the machine was.
  const bool wanted_cpu = wait_s < 0 || wait_s >= 0.5 * std::max(0.0, wall_s - cpu_s);
  const bool starved = cpu_s < 0.5 * limit_s && idle_cores < 0.5 && wanted_cpu;
  return {starved, starved ? std::clamp(limit_s / std::max(cpu_s, 1e-3), 1.0, 2.0) : 1.0, cpu_s,
          text};
}

}  // namespace cutune::eval
