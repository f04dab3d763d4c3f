// Whether a process that ran past its time limit timed out on its own (a hang, a compile that
// never ends: a verdict on the config) or was starved by other work on the machine (a timeout
// under load: no verdict, retried and, if it persists, transient).
//
// Starved: the process (with its process group) used under half of the wall time in CPU time
// while the machine had under half a core idle on average. A process that spins (a hang, an
// endless compile) gets its share of a busy machine and is not starved; one that sleeps on an
// idle machine is not starved either. Only one that wanted the CPU and could not get it is.
// Reads Linux's /proc; elsewhere every timeout is the process's own.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace cutune::eval {

// CPU seconds (user + system, with waited-for children) used so far by one process (all its
// threads), or by every process of a process group (a compiler driver and the cc1plus it runs);
// 0 when /proc cannot tell.
double process_cpu_seconds(pid_t pid);
double group_cpu_seconds(pid_t group);

struct Starvation {
  bool starved = false;
  std::string detail;  // "it ran 0.4 s in 6.0 s; the machine had 0.1 cores idle on average"
};

class StarvationProbe {
 public:
  StarvationProbe();  // starts the clock and reads the machine's idle time
  // At a timeout: cpu_s is what the process used since the probe started.
  Starvation judge(double cpu_s) const;

 private:
  std::chrono::steady_clock::time_point start_;
  double idle_s_ = -1;  // the machine's idle + iowait CPU seconds; -1 when unknown
};

}  // namespace cutune::eval
