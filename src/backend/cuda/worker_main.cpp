// cutune-cuda-worker: owns one GPU's CUDA context for the tuner. Reads requests, one JSON object
// per line on stdin, and answers each with one line on stdout (see worker_protocol.hpp).
//
//   cutune-cuda-worker [--device N]
//
// For each candidate: load its cubin, opt in to its dynamic shared memory, restore the inputs,
// poison the outputs and the guard regions around every buffer, launch with cuLaunchKernelEx,
// check the guards and compare with the reference's outputs, then time it with events (L2 flushed
// before each repetition), then check the guards again and the candidate kRechecksAfterTiming more
// times. A sticky CUDA error (a fault) makes the context unusable: the worker replies "crash" (or
// "transient" for the machine's trouble, such as no memory left) and exits, and the tuner starts a
// fresh one.
// Families whose launch a "measure" request cannot describe add ops of their own (worker_host.hpp).
#include <cuda.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cutune/cuda/worker_protocol.hpp"
#include "cutune/timing_summary.hpp"
#include "kernel_launch.hpp"
#include "launch_timer.hpp"
#include "worker_host.hpp"

namespace proto = cutune::cuda::protocol;

namespace {

constexpr int kStickyExitCode = 3;

// SM clock and power readings through NVML, loaded at run time: the worker still runs without
// it (both read 0).
class SmClock {
 public:
  explicit SmClock(const std::string& pci_bus_id) {
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) return;
    auto init = reinterpret_cast<int (*)()>(dlsym(library_, "nvmlInit_v2"));
    auto by_bus = reinterpret_cast<int (*)(const char*, void**)>(
        dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock_info_ =
        reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(library_, "nvmlDeviceGetClockInfo"));
    power_usage_ =
        reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(library_, "nvmlDeviceGetPowerUsage"));
    if (!init || !by_bus || !clock_info_ || init() != 0) return;
    if (by_bus(pci_bus_id.c_str(), &device_) != 0) {
      // NVML may want the 8-digit PCI domain that CUDA writes with 4.
      if (by_bus(("0000" + pci_bus_id).c_str(), &device_) != 0) device_ = nullptr;
    }
  }
  int mhz() const {
    constexpr int kNvmlClockSm = 1;
    unsigned value = 0;
    if (device_ == nullptr || clock_info_(device_, kNvmlClockSm, &value) != 0) return 0;
    return static_cast<int>(value);
  }
  double watts() const {
    unsigned milliwatts = 0;
    if (device_ == nullptr || power_usage_ == nullptr || power_usage_(device_, &milliwatts) != 0) {
      return 0;
    }
    return milliwatts / 1000.0;
  }

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  int (*clock_info_)(void*, int, unsigned*) = nullptr;
  int (*power_usage_)(void*, unsigned*) = nullptr;
};

}  // namespace

namespace {

using namespace cutune::cuda::worker;

// Buffers for one argument list and seed, kept while requests share them: pristine inputs,
// the working copies kernels see, and the reference's outputs on the host.
struct Workspace {
  std::string key;
  std::vector<DeviceBuffer> pristine;            // per argument; inputs only
  std::vector<GuardedBuffer> working;            // per argument; every buffer, guarded
  std::vector<std::vector<std::byte>> expected;  // per argument; outputs only
};

class Worker : public Host {
 public:
  explicit Worker(int ordinal) {
    check(cuInit(0), "cuInit");
    check(cuDeviceGet(&device_, ordinal), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context_), "cuCtxSetCurrent");
    check(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    report_ = describe();
    clock_ = std::make_unique<SmClock>(report_.pci_bus_id);
    timer_.emplace(stream_);  // its flush: twice this device's L2
  }

  const proto::DeviceReport& report() const override { return report_; }
  CUdevice device() const override { return device_; }
  CUstream stream() const override { return stream_; }
  int sm_clock_mhz() const override { return clock_->mhz(); }
  double power_w() const override { return clock_->watts(); }

  CUmodule module(const std::string& cubin) override {
    auto found = modules_.find(cubin);
    if (found == modules_.end()) {
      if (modules_.size() >= 512) {  // bound the context's memory over a long tune
        for (auto& [path, loaded] : modules_) cuModuleUnload(loaded);
        modules_.clear();
      }
      CUmodule loaded = nullptr;
      refuse_unless_sticky(cuModuleLoad(&loaded, cubin.c_str()), "loading " + cubin);
      found = modules_.emplace(cubin, loaded).first;
    }
    return found->second;
  }

  proto::MeasureReply measure(const proto::MeasureRequest& request) {
    proto::MeasureReply reply;
    reply.id = request.id;
    reply.sm_clock_start_mhz = clock_->mhz();
    try {
      prepare(request);
      if (request.rounds > 0) {
        run_rounds(request, reply);
      } else {
        CUfunction candidate = function(request.candidate, request);
        auto check_start = std::chrono::steady_clock::now();
        bool correct = check_candidate(candidate, request.candidate, request, reply);
        reply.kernel_ms = milliseconds_since(check_start);
        if (correct && request.time) {
          auto timing_start = std::chrono::steady_clock::now();
          auto args = params(request.args);
          time([&] { launch(candidate, request.candidate, args); }, request.timing, reply);
          correct = checked_after_timing(candidate, request.candidate, request, reply);
          reply.kernel_ms += milliseconds_since(timing_start);
        }
        if (correct) reply.outcome = "ok";
      }
    } catch (const LaunchRefused& refused) {
      reply.outcome = "launch_error";
      reply.detail = refused.what();
    }
    reply.sm_clock_end_mhz = clock_->mhz();
    return reply;
  }

 private:
  // One launch from restored inputs and poisoned outputs, compared with the reference's outputs
  // when there is one. False, with the reply's outcome wrong_result, when an output differs.
  bool check_candidate(CUfunction candidate, const proto::Launch& shape,
                       const proto::MeasureRequest& request, proto::MeasureReply& reply) {
    restore_inputs();
    reset_outputs(request.args);
    for (const GuardedBuffer& buffer : workspace_.working) buffer.poison(stream_);
    launch(candidate, shape, params(request.args));
    sync("candidate");
    if (std::string damage = damaged_guard(request.args); !damage.empty()) {
      reply.outcome = "wrong_result";
      reply.detail = std::move(damage);
      return false;
    }
    if (!request.reference) return true;
    for (std::size_t i = 0; i < request.args.size(); ++i) {
      const auto& arg = request.args[i];
      if (!arg.is_buffer || arg.role != proto::Role::output) continue;
      std::vector<std::byte> got(workspace_.working[i].bytes);
      check(cuMemcpyDtoH(got.data(), workspace_.working[i].pointer, got.size()), "cuMemcpyDtoH");
      Comparison result = compare(got, workspace_.expected[i], arg.dtype, arg.count);
      reply.max_rel_error = std::max(reply.max_rel_error, result.max_rel_error);
      double limit =
          request.tolerance >= 0 ? request.tolerance : proto::default_tolerance(arg.dtype);
      if (!result.problem.empty() || !(result.max_rel_error <= limit)) {
        reply.outcome = "wrong_result";
        reply.detail =
            "argument " + std::to_string(i) + ": " +
            (result.problem.empty() ? "relative error " + std::to_string(result.max_rel_error) +
                                          " above tolerance " + std::to_string(limit)
                                    : result.problem);
        return false;
      }
    }
    return true;
  }

  // The first guard any launch since the last poisoning wrote over, named; empty when none.
  std::string damaged_guard(const std::vector<proto::Arg>& args) const {
    for (std::size_t i = 0; i < workspace_.working.size() && i < args.size(); ++i) {
      const char* role = args[i].role == proto::Role::input    ? "input"
                         : args[i].role == proto::Role::output ? "output"
                                                               : "scratch";
      std::string damage =
          workspace_.working[i].damage("argument " + std::to_string(i) + " (" + role + ")");
      if (!damage.empty()) return damage;
    }
    return {};
  }

  // After the timed runs of a candidate that passed its check: the guards it ran between, then
  // kRechecksAfterTiming more checks. False, with the reply's outcome and detail, when either
  // fails.
  bool checked_after_timing(CUfunction candidate, const proto::Launch& shape,
                            const proto::MeasureRequest& request, proto::MeasureReply& reply) {
    if (std::string damage = damaged_guard(request.args); !damage.empty()) {
      reply.outcome = "wrong_result";
      reply.detail = "during its timed runs: " + damage;
      return false;
    }
    return recheck_after_timing(
        [&](proto::MeasureReply& checked) {
          return check_candidate(candidate, shape, request, checked);
        },
        reply);
  }

  // Paired rounds (MeasureRequest::rounds): every candidate checked as a measure request checks
  // it, then the worker's paired rounds (run_paired_rounds) on the inputs restored once, as
  // time() runs its repetitions; the first candidate's time is the one that must settle.
  void run_rounds(const proto::MeasureRequest& request, proto::MeasureReply& reply) {
    std::vector<std::pair<CUfunction, const proto::Launch*>> passed;
    for (const proto::Launch& shape : request.candidates) {
      proto::MeasureReply checked;
      try {
        CUfunction candidate = function(shape, request);
        if (check_candidate(candidate, shape, request, checked)) {
          checked.outcome = "ok";
          passed.emplace_back(candidate, &shape);
        } else {
          passed.emplace_back(nullptr, nullptr);
        }
      } catch (const LaunchRefused& refused) {
        checked.outcome = "launch_error";
        checked.detail = refused.what();
        passed.emplace_back(nullptr, nullptr);
      }
      reply.candidate_outcomes.push_back(checked.outcome);
      reply.candidate_details.push_back(checked.detail);
    }
    restore_inputs();
    const std::vector<void*> args = params(request.args);
    std::vector<std::function<void()>> timed;
    for (const auto& [candidate, shape] : passed) {
      timed.emplace_back();
      if (candidate != nullptr) {
        timed.back() = [this, candidate, shape, &args] { launch(candidate, *shape, args); };
      }
    }
    run_paired_rounds(*this, timed, {}, request.rounds, request.reps, reply);
    // Damage during the rounds names no candidate; each one's re-checks, with guards of its own,
    // find a kernel that writes out of bounds (or is wrong) only sometimes.
    recheck_after_rounds(
        timed,
        [&](std::size_t j, proto::MeasureReply& checked) {
          return check_candidate(passed[j].first, *passed[j].second, request, checked);
        },
        reply);
  }

  proto::DeviceReport describe() {
    proto::DeviceReport report;
    char name[256] = {};
    check(cuDeviceGetName(name, sizeof name, device_), "cuDeviceGetName");
    report.name = name;
    auto attribute = [&](CUdevice_attribute which) {
      int value = 0;
      check(cuDeviceGetAttribute(&value, which, device_), "cuDeviceGetAttribute");
      return value;
    };
    report.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    report.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    report.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    report.regs_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    report.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    report.smem_optin_bytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    check(cuDriverGetVersion(&report.driver_version), "cuDriverGetVersion");
    char bus[64] = {};
    check(cuDeviceGetPCIBusId(bus, sizeof bus, device_), "cuDeviceGetPCIBusId");
    report.pci_bus_id = bus;
    return report;
  }

  // Module loading, attribute and launch failures are the candidate's; a sticky error is not.
  void refuse_unless_sticky(CUresult code, const std::string& what) {
    if (code == CUDA_SUCCESS) return;
    if (is_sticky(code) || cuCtxSynchronize() != CUDA_SUCCESS) {
      throw CudaError(code, what + ": " + error_name(code));
    }
    throw LaunchRefused(what + ": " + error_name(code));
  }

  // The entry of the launch's module, its __constant__ symbols written first (a module is shared
  // by requests whose constants may differ, so every request writes them).
  CUfunction function(const proto::Launch& launch, const proto::MeasureRequest& request) {
    for (const proto::Constant& constant : request.constants) {
      write_constant(module(launch.cubin), constant);
    }
    CUfunction entry = nullptr;
    refuse_unless_sticky(cuModuleGetFunction(&entry, module(launch.cubin), launch.kernel.c_str()),
                         "finding " + launch.kernel);
    if (launch.dynamic_smem > 48 * 1024) {
      refuse_unless_sticky(
          cuFuncSetAttribute(entry, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(launch.dynamic_smem)),
          "dynamic shared memory of " + std::to_string(launch.dynamic_smem) + " bytes");
    }
    return entry;
  }

  void write_constant(CUmodule loaded, const proto::Constant& constant) {
    CUdeviceptr symbol = 0;
    std::size_t symbol_bytes = 0;
    refuse_unless_sticky(cuModuleGetGlobal(&symbol, &symbol_bytes, loaded, constant.symbol.c_str()),
                         "finding __constant__ " + constant.symbol);
    std::vector<std::byte> values;
    if (constant.arg < 0) values = converted(constant.dtype, constant.values);
    const std::size_t bytes =
        constant.arg < 0 ? values.size()
                         : workspace_.pristine.at(static_cast<std::size_t>(constant.arg)).bytes;
    if (bytes > symbol_bytes) {
      throw LaunchRefused("__constant__ " + constant.symbol + " holds " +
                          std::to_string(symbol_bytes) + " bytes, its fill " +
                          std::to_string(bytes));
    }
    if (constant.arg < 0) {
      check(cuMemcpyHtoD(symbol, values.data(), bytes), "cuMemcpyHtoD");
    } else {
      const DeviceBuffer& from = workspace_.pristine.at(static_cast<std::size_t>(constant.arg));
      check(cuMemcpyDtoD(symbol, from.pointer, bytes), "cuMemcpyDtoD");
      check(cuCtxSynchronize(), "cuCtxSynchronize");
    }
  }

  void launch(CUfunction entry, const proto::Launch& shape, std::vector<void*> params) {
    const cutune::cuda::KernelGeometry geometry{shape.grid, shape.block, shape.cluster,
                                                shape.dynamic_smem};
    refuse_unless_sticky(cutune::cuda::launch_kernel(entry, geometry, stream_, params.data()),
                         "launching " + shape.kernel);
  }

  void sync(const std::string& what) {
    CUresult code = cuStreamSynchronize(stream_);
    if (code != CUDA_SUCCESS) throw CudaError(code, what + ": " + error_name(code));
  }

  void prepare(const proto::MeasureRequest& request) {
    nlohmann::json identity = {{"args", request.args}, {"seed", request.seed}};
    if (request.reference) identity["reference"] = *request.reference;
    std::string key = identity.dump();
    if (key == workspace_.key) return;
    workspace_ = Workspace{};
    Random rng(request.seed);
    for (const auto& arg : request.args) {
      std::size_t bytes = arg.is_buffer ? arg.count * proto::dtype_size(arg.dtype) : 0;
      workspace_.working.emplace_back(arg.is_buffer ? GuardedBuffer(bytes) : GuardedBuffer());
      workspace_.pristine.emplace_back();
      workspace_.expected.emplace_back();
      if (arg.is_buffer && arg.role == proto::Role::input) {
        workspace_.pristine.back() = DeviceBuffer(bytes);
        if (arg.zero_fill) {
          check(cuMemsetD8(workspace_.pristine.back().pointer, 0, bytes), "cuMemsetD8");
        } else {
          auto values = random_values(arg.dtype, arg.count, rng);
          check(cuMemcpyHtoD(workspace_.pristine.back().pointer, values.data(), bytes),
                "cuMemcpyHtoD");
        }
      }
    }
    // The uploads above ran on the legacy stream and may still be in flight.
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    if (request.reference) {
      CUfunction reference = function(*request.reference, request);
      restore_inputs();
      reset_outputs(request.args);
      launch(reference, *request.reference, params(request.args));
      sync("reference");
      for (std::size_t i = 0; i < request.args.size(); ++i) {
        const auto& arg = request.args[i];
        if (!arg.is_buffer || arg.role != proto::Role::output) continue;
        workspace_.expected[i].resize(workspace_.working[i].bytes);
        check(cuMemcpyDtoH(workspace_.expected[i].data(), workspace_.working[i].pointer,
                           workspace_.expected[i].size()),
              "cuMemcpyDtoH");
      }
    }
    workspace_.key = std::move(key);
  }

  // A previous candidate may have written into its inputs: every launch starts from the same data.
  void restore_inputs() {
    for (std::size_t i = 0; i < workspace_.pristine.size(); ++i) {
      if (workspace_.pristine[i].pointer == 0) continue;
      check(cuMemcpyDtoDAsync(workspace_.working[i].pointer, workspace_.pristine[i].pointer,
                              workspace_.pristine[i].bytes, stream_),
            "cuMemcpyDtoDAsync");
    }
  }

  // Float outputs become NaN (all bits set), so an element the kernel never writes fails the
  // check; integer outputs 0x7f7f..., far from any value the inputs produce.
  void reset_outputs(const std::vector<proto::Arg>& args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!args[i].is_buffer || args[i].role == proto::Role::input) continue;
      bool integer = args[i].dtype == proto::Dtype::i32 || args[i].dtype == proto::Dtype::i64 ||
                     args[i].dtype == proto::Dtype::u32 || args[i].dtype == proto::Dtype::u64 ||
                     args[i].dtype == proto::Dtype::u8;
      unsigned char fill = args[i].role == proto::Role::scratch ? 0x00 : integer ? 0x7f : 0xff;
      check(cuMemsetD8Async(workspace_.working[i].pointer, fill, workspace_.working[i].bytes,
                            stream_),
            "cuMemsetD8Async");
    }
  }

  std::vector<void*> params(const std::vector<proto::Arg>& args) {
    scalars_.assign(args.size(), {});
    std::vector<void*> pointers;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const auto& arg = args[i];
      std::byte* slot = scalars_[i].data();
      if (arg.hidden) continue;
      if (arg.is_buffer) {
        std::memcpy(slot, &workspace_.working[i].pointer, sizeof(CUdeviceptr));
      } else {
        put_value(arg.dtype, slot, arg.value);
      }
      pointers.push_back(slot);
    }
    return pointers;
  }

  // The timed repetitions in one graph, so that the host's launch rate is not timed.
  bool run_graph(const std::function<void()>& launch_once, int reps, bool flush) {
    timer_->reserve(reps);
    if (cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS) {
      return false;
    }
    bool captured = true;
    try {
      timer_->enqueue(launch_once, reps, flush, true);
    } catch (const std::exception&) {
      captured = false;
    }
    CUgraph graph = nullptr;
    if (cuStreamEndCapture(stream_, &graph) != CUDA_SUCCESS || !captured) {
      if (graph) cuGraphDestroy(graph);
      return false;
    }
    CUgraphExec exec = nullptr;
    bool ok = cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS;
    cuGraphDestroy(graph);
    if (!ok) return false;
    CUresult launched = cuGraphLaunch(exec, stream_);
    if (launched == CUDA_SUCCESS) sync("timed graph");
    cuGraphExecDestroy(exec);
    return launched == CUDA_SUCCESS;
  }

  void time(const std::function<void()>& launch_once, const proto::Timing& timing,
            proto::MeasureReply& reply) override {
    auto warm_start = std::chrono::steady_clock::now();
    do {
      for (int i = 0; i < std::max(1, timing.warmup); ++i) launch_once();
      sync("warm-up");
    } while (milliseconds_since(warm_start) < timing.warmup_ms);
    // A first estimate, in a warm L2, sizes the repetitions to the budget.
    constexpr int kProbes = 3;
    timer_->enqueue_span([&] {
      for (int i = 0; i < kProbes; ++i) launch_once();
    });
    sync("warm-up");
    double estimate_ms = std::max(1e-4, timer_->span_ms() / kProbes);
    int reps = static_cast<int>(std::ceil(timing.budget_ms / estimate_ms));
    reps = std::clamp(reps, std::max(1, timing.min_reps), std::max(1, timing.max_reps));

    // Short kernels are launched faster by the GPU than the host can enqueue them: a graph
    // removes the host from the timed region.
    constexpr double kLaunchGapMs = 0.02;
    bool want_graph =
        timing.graph == "on" || (timing.graph == "auto" && estimate_ms < kLaunchGapMs);
    reply.graph = want_graph && run_graph(launch_once, reps, timing.flush_l2);
    if (!reply.graph) {
      timer_->enqueue(launch_once, reps, timing.flush_l2);
      sync("timed repetitions");
    }
    const cutune::TimingSummary summary = cutune::summarize_timings(timer_->elapsed(reps));
    summary.copy_to(reply);
  }

  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  proto::DeviceReport report_;
  std::unique_ptr<SmClock> clock_;
  std::optional<LaunchTimer> timer_;  // the one timing (launch_timer.hpp), made in the context
  Workspace workspace_;
  std::map<std::string, CUmodule> modules_;
  std::vector<std::array<std::byte, 8>> scalars_;
};

// Replies go to a private copy of the original stdout: kernels that printf (and the driver) write
// to fd 1, which points at stderr once the worker starts.
FILE* g_replies = stdout;

void send(const nlohmann::json& message) {
  std::string line = message.dump();
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), g_replies);
  std::fflush(g_replies);
}

}  // namespace

int main(int argc, char** argv) {
  int ordinal = 0;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--device" && i + 1 < argc) {
      ordinal = std::atoi(argv[++i]);
    } else {
      std::cerr << "usage: cutune-cuda-worker [--device N]\n";
      return 2;
    }
  }
  int replies_fd = dup(STDOUT_FILENO);
  if (replies_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
      (g_replies = fdopen(replies_fd, "w")) == nullptr) {
    std::perror("cutune-cuda-worker: cannot set up its reply stream");
    return 2;
  }
  std::unique_ptr<Worker> worker;
  std::map<std::string, std::unique_ptr<Mode>> modes;  // per family; destroyed before the worker
  std::string line;
  while (std::getline(std::cin, line)) {
    auto started = std::chrono::steady_clock::now();
    nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
    if (message.is_discarded() || !message.is_object()) {
      send({{"ok", false}, {"error", "not a JSON object: " + line.substr(0, 200)}});
      continue;
    }
    std::string op = message.value("op", "");
    if (op == "quit") return 0;
    try {
      if (!worker) worker = std::make_unique<Worker>(ordinal);
      if (op == "hello") {
        send({{"ok", true}, {"device", worker->report()}});
      } else if (op == "measure") {
        auto request = message.at("request").get<proto::MeasureRequest>();
        auto reply = worker->measure(request);
        reply.worker_ms = milliseconds_since(started);
        send(reply);
      } else if (op == "family") {
        const std::string family = message.value("family", "");
        auto& mode = modes[family];
        if (!mode) mode = make_family_mode(family, *worker);
        if (!mode) {
          modes.erase(family);
          send({{"ok", false}, {"error", "this worker has no mode of family '" + family + "'"}});
          continue;
        }
        auto reply = mode->measure(message.at("request"));
        reply.worker_ms = milliseconds_since(started);
        send(reply);
      } else {
        send({{"ok", false}, {"error", "unknown op '" + op + "'"}});
      }
    } catch (const CudaError& error) {
      // The context may be unusable; a fresh process is the only reliable recovery.
      proto::MeasureReply reply;
      reply.id = message.contains("request") ? message["request"].value("id", std::uint64_t{0}) : 0;
      reply.outcome = is_machine_trouble(error.code) ? "transient" : "crash";
      reply.detail = error.what();
      send(reply);
      return kStickyExitCode;
    } catch (const std::exception& error) {
      send({{"ok", false}, {"error", error.what()}});
    }
  }
  return 0;
}
