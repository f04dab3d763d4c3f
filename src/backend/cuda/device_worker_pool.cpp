#include "cutune/cuda/device_worker_pool.hpp"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "eval/worker_client.hpp"

namespace cutune::cuda {
namespace fs = std::filesystem;

Outcome outcome_named(const std::string& name, std::string& detail) {
  // A worker measures what compiled: the compiler's and the watchdog's outcomes are the tuner's
  // to give, never a worker's.
  const std::optional<Outcome> outcome = outcome_from_string(name);
  if (outcome == Outcome::ok || outcome == Outcome::wrong_result ||
      outcome == Outcome::launch_error || outcome == Outcome::crash ||
      outcome == Outcome::transient) {
    return *outcome;
  }
  detail = "worker answered an outcome no worker gives '" + name + "': " + detail;
  return Outcome::crash;
}

void read_paired_rounds(const DeviceResult& result, const std::vector<std::size_t>& sent,
                        PairedRounds& out) {
  if (!result.measurement.ok()) {
    for (std::size_t i : sent) out.checks.at(i) = result.measurement;
    return;
  }
  const protocol::MeasureReply& reply = result.reply;
  out.warmup_rounds = reply.warmup_rounds;
  for (std::size_t j = 0; j < sent.size() && j < reply.candidate_outcomes.size(); ++j) {
    Measurement& check = out.checks.at(sent[j]);
    check.detail = reply.candidate_details.at(j);
    check.outcome = outcome_named(reply.candidate_outcomes[j], check.detail);
    check.device = result.measurement.device;  // the rounds' device measured every config
    check.device_name = result.measurement.device_name;
  }
  const auto known = [](double x) { return x > 0 ? x : NAN; };
  for (std::size_t round = 0; round < out.rounds.size() && round < reply.round_ms.size(); ++round) {
    TimedRound& timed = out.rounds[round];
    for (std::size_t j = 0; j < sent.size(); ++j) {
      timed.times_ms.at(sent[j]) = known(reply.round_ms[round].at(j));
    }
    timed.reference_ms = known(reply.round_reference_ms.at(round));
    timed.sm_clock_mhz = known(reply.round_sm_clock_mhz.at(round));
    timed.power_w = known(reply.round_power_w.at(round));
  }
}

namespace {

Measurement from_reply(const protocol::MeasureReply& reply) {
  Measurement m;
  m.detail = reply.detail;
  m.outcome = outcome_named(reply.outcome, m.detail);
  if (reply.max_rel_error >= 0) m.max_rel_error = reply.max_rel_error;
  if (m.ok() && reply.repetitions > 0) {
    m.take_timing(reply);
    m.detail = std::to_string(reply.repetitions) + " repetitions" +
               (reply.graph ? " in a CUDA graph" : "") + "; SM clock " +
               std::to_string(reply.sm_clock_start_mhz) + " -> " +
               std::to_string(reply.sm_clock_end_mhz) + " MHz";
  }
  return m;
}

fs::path default_worker() {
  if (const char* path = std::getenv("CUTUNE_CUDA_WORKER"); path != nullptr && *path != '\0') {
    return path;
  }
  return CUTUNE_CUDA_WORKER_PATH;
}

}  // namespace

struct DeviceWorkerPool::Slot {
  std::mutex mutex;
  std::unique_ptr<eval::WorkerClient> client;
  int greeted_start = 0;  // which start of the worker answered hello
  protocol::DeviceReport report;

  // Caller holds the lock. A fresh worker must answer hello before it gets work, so that a
  // worker that cannot even start is an error of the setup, never a candidate's crash.
  const protocol::DeviceReport& greet(std::chrono::milliseconds limit) {
    if (client->running() && greeted_start == client->starts()) return report;
    eval::WorkerReply reply;
    try {
      reply = client->request({{"op", "hello"}}, limit);
    } catch (const std::runtime_error& e) {  // the worker program could not even be started
      throw std::runtime_error(std::string("the CUDA device worker did not start: ") + e.what());
    }
    if (reply.status != eval::WorkerReply::Status::ok || !reply.body.value("ok", false)) {
      client->stop();
      throw std::runtime_error("the CUDA device worker did not start: " +
                               (reply.detail.empty() ? reply.body.dump() : reply.detail));
    }
    report = reply.body.at("device").get<protocol::DeviceReport>();
    greeted_start = client->starts();
    return report;
  }
};

DeviceWorkerPool::DeviceWorkerPool(Options options) : options_(std::move(options)) {
  if (options_.devices.empty()) throw std::invalid_argument("DeviceWorkerPool: no devices");
  if (options_.worker.empty()) options_.worker = default_worker();
  if (options_.log_dir.empty()) {
    static std::atomic<unsigned> pools{0};
    options_.log_dir = fs::temp_directory_path() / ("cutune-workers-" + std::to_string(::getpid()) +
                                                    "-" + std::to_string(pools++));
    own_log_dir_ = true;
  }
  fs::create_directories(options_.log_dir);
  for (int device : options_.devices) {
    std::vector<std::string> argv = {options_.worker.string(), "--device", std::to_string(device)};
    argv.insert(argv.end(), options_.worker_args.begin(), options_.worker_args.end());
    auto slot = std::make_unique<Slot>();
    slot->client = std::make_unique<eval::WorkerClient>(
        std::move(argv), options_.log_dir / ("worker-" + std::to_string(device) + ".log"));
    slots_.push_back(std::move(slot));
  }
}

DeviceWorkerPool::~DeviceWorkerPool() {
  slots_.clear();  // stops the workers, which write into the log folder until then
  if (own_log_dir_) {
    std::error_code ignored;
    fs::remove_all(options_.log_dir, ignored);
  }
}

std::size_t DeviceWorkerPool::size() const { return slots_.size(); }

int DeviceWorkerPool::workers_started() const {
  int started = 0;
  for (const auto& slot : slots_) started += slot->client->starts();
  return started;
}

protocol::DeviceReport DeviceWorkerPool::device(std::size_t slot_index) {
  Slot& slot = *slots_.at(slot_index);
  std::lock_guard lock(slot.mutex);
  return slot.greet(options_.start_timeout);
}

protocol::DeviceReport DeviceWorkerPool::identical_devices() {
  const protocol::DeviceReport first = device(0);
  const auto fields = [](const protocol::DeviceReport& d) {
    return d.name + ", sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ", " +
           std::to_string(d.sm_count) + " SMs, " + std::to_string(d.regs_per_sm) +
           " registers per SM, " + std::to_string(d.smem_optin_bytes) + " B shared memory, " +
           std::to_string(d.l2_bytes) + " B L2, driver " + std::to_string(d.driver_version);
  };
  for (std::size_t slot = 1; slot < slots_.size(); ++slot) {
    const protocol::DeviceReport other = device(slot);
    if (fields(other) != fields(first)) {
      throw std::invalid_argument("devices " + std::to_string(options_.devices[0]) + " and " +
                                  std::to_string(options_.devices[slot]) + " differ (" +
                                  fields(first) + " vs " + fields(other) +
                                  "): only identical devices share a tune");
    }
  }
  return first;
}

DeviceResult DeviceWorkerPool::measure(std::size_t slot_index,
                                       const protocol::MeasureRequest& request) {
  return tagged(slot_index, exchange(slot_index, {{"op", "measure"}, {"request", request}},
                                     request.timing, request.time));
}

DeviceResult DeviceWorkerPool::measure(std::size_t slot_index,
                                       const protocol::FamilyRequest& request) {
  return tagged(
      slot_index,
      exchange(slot_index,
               {{"op", "family"}, {"family", request.family}, {"request", request.request}},
               request.timing, request.time));
}

DeviceResult DeviceWorkerPool::tagged(std::size_t slot_index, DeviceResult result) {
  Slot& slot = *slots_.at(slot_index);
  std::lock_guard lock(slot.mutex);
  result.measurement.device = options_.devices.at(slot_index);
  result.measurement.device_name = slot.report.name;
  return result;
}

DeviceResult DeviceWorkerPool::exchange(std::size_t slot_index, const nlohmann::json& message,
                                        const protocol::Timing& timing, bool timed) {
  // A worker killed from outside (SIGKILL, SIGTERM, ...) or stopped by the machine's trouble
  // (no device memory left) says nothing of the candidate: asked again, a few times, then
  // reported as transient.
  constexpr int kMachineRetries = 2;
  DeviceResult result;
  for (int attempt = 0; attempt <= kMachineRetries; ++attempt) {
    result = exchange_once(slot_index, message, timing, timed);
    if (result.measurement.outcome != Outcome::transient) break;
  }
  if (result.measurement.outcome == Outcome::transient) {
    result.measurement.detail = "the machine stopped the measurement " +
                                std::to_string(kMachineRetries + 1) +
                                " times (not the candidate's doing): " + result.measurement.detail;
  }
  return result;
}

DeviceResult DeviceWorkerPool::exchange_once(std::size_t slot_index, const nlohmann::json& message,
                                             const protocol::Timing& timing, bool timed) {
  Slot& slot = *slots_.at(slot_index);
  std::lock_guard lock(slot.mutex);
  slot.greet(options_.start_timeout);
  auto limit = options_.watchdog +
               std::chrono::milliseconds(static_cast<long long>(timed ? 4 * timing.budget_ms : 0));
  auto reply = slot.client->request(message, limit);
  DeviceResult result;
  result.round_trip_ms = reply.wall_ms;
  Measurement& m = result.measurement;
  switch (reply.status) {
    case eval::WorkerReply::Status::timeout:
      m.outcome = Outcome::hang;
      m.detail = reply.detail;
      return result;
    case eval::WorkerReply::Status::died:
      m.outcome = reply.killed_from_outside() ? Outcome::transient : Outcome::crash;
      m.detail = reply.detail;
      return result;
    case eval::WorkerReply::Status::ok:
      break;
  }
  if (reply.body.contains("error")) {
    // The worker could not use the request: a mistake of the tuner's, not fatal to a tune.
    m.outcome = Outcome::launch_error;
    m.detail = "worker refused the request: " + reply.body.value("error", "");
    return result;
  }
  result.reply = reply.body.get<protocol::MeasureReply>();
  m = from_reply(result.reply);
  // A worker that reports a crash (or the machine's trouble) is ending: its context is unusable.
  if (m.outcome == Outcome::crash || m.outcome == Outcome::transient) slot.client->stop();
  return result;
}

}  // namespace cutune::cuda
