// What a kernel is tuned for: the problem (sizes, dtype...) and the device it runs on.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "cutune/value.hpp"

namespace cutune {

// Named problem arguments, e.g. m=2048, n=4096, k=4096, dtype="bf16".
class Problem {
 public:
  Problem() = default;
  explicit Problem(std::map<std::string, Value, std::less<>> args) : args_(std::move(args)) {}

  // Parses "m=2048,n=4096,dtype=bf16": integers, reals, true/false, else strings.
  // Throws std::invalid_argument naming the malformed item.
  static Problem parse(std::string_view text);

  bool has(std::string_view name) const;
  const Value& at(std::string_view name) const;  // throws std::out_of_range naming the argument
  std::int64_t get_int(std::string_view name) const { return at(name).as_int(); }
  void set(std::string name, Value value) { args_[std::move(name)] = std::move(value); }
  const std::map<std::string, Value, std::less<>>& args() const { return args_; }

  std::string canonical() const;  // "dtype=bf16,k=4096,m=2048,n=4096": sorted, stable key text

  friend bool operator==(const Problem&, const Problem&) = default;

 private:
  std::map<std::string, Value, std::less<>> args_;
};

// The device a kernel is tuned on, as far as constraints and seeds need to know it.
struct Device {
  std::string name;  // "NVIDIA H200", "host-cpu"
  int cc_major = 0;  // compute capability (0 for CPUs)
  int cc_minor = 0;
  std::int64_t smem_per_block = 0;  // opt-in maximum dynamic shared memory per block, bytes
  int sm_count = 0;                 // multiprocessors (or cores for a CPU)
  int regs_per_sm = 0;

  static Device h200();      // the description of the H200 this project benchmarks on
  static Device host_cpu();  // this machine's CPU
  std::string canonical() const;
};

}  // namespace cutune
