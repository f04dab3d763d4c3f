// Whether a process that ran past its time limit timed out on its own (a hang, a compile that
// never ends: a verdict on the config) or was starved by other work on the machine (a timeout
// under load: no verdict, retried and, if it persists, transient).
//
// Starved: the process (with its process group) got under half of its limit in CPU time while the
// machine had under half a core idle on average, and it spent at least half of the time it did not
// run waiting for a core (runnable, in the scheduler's queue): it wanted the CPU and could not get
// it. One that slept is not starved (a hang), however busy the machine was. A starved process is
// given a longer limit on its next try (Starvation::stretch), so that at the same share of the
// machine it gets about its limit in CPU: a compile that merely needed its time then finishes, and
// one that spins forever is no longer starved and times out as its own. Reads Linux's /proc;
// elsewhere every timeout is the process's own.
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
// Seconds the process's (or the group's) threads have spent runnable but waiting for a core
// (the run delay of /proc/PID/task/TID/schedstat); -1 when the kernel does not tell.
double process_wait_seconds(pid_t pid);
double group_wait_seconds(pid_t group);

struct Starvation {
  bool starved = false;
  double stretch = 1;  // starved: how much longer the next try's limit should be (at most 2)
  double cpu_s = 0;    // what the process got; a stretched try is judged against the first limit
  std::string detail;  // "it ran 0.40 s of CPU in 6.00 s; the machine had 0.10 cores idle ..."
};

class StarvationProbe {
 public:
  StarvationProbe();  // starts the clock and reads the machine's idle time
  // At a timeout: cpu_s is what the process used since the probe started, limit_s its limit,
  // wait_s how long it waited for a core meanwhile (-1: unknown, and then only CPU and idle time
  // judge).
  Starvation judge(double cpu_s, double limit_s, double wait_s) const;

 private:
  std::chrono::steady_clock::time_point start_;
  double idle_s_ = -1;  // the machine's idle + iowait CPU seconds; -1 when unknown
};

}  // namespace cutune::eval
