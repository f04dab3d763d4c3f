#include "result_writer.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

namespace cutune::tuning {
namespace {

// One line a person (or a script) can act on: the config as JSON and what was measured.
std::string result_line(const StoredResult& result) {
  nlohmann::json line;
  line["config"] = nlohmann::json::parse(result.config_json, nullptr, false);
  if (line["config"].is_discarded()) line["config"] = result.config_json;
  line["config_hash"] = result.config_hash;
  line["outcome"] = to_string(result.measurement.outcome);
  const double time_ms = result.measurement.time_ms;
  line["time_ms"] = std::isfinite(time_ms) ? nlohmann::json(time_ms) : nlohmann::json();
  line["detail"] = result.measurement.detail.substr(0, 200);
  return line.dump();
}

}  // namespace

std::optional<std::int64_t> ResultWriter::write_or_keep(const StoredResult& result) {
  if (store_ == nullptr) return std::nullopt;
  if (kept_.empty()) {
    try {
      return store_->record(result);
    } catch (const StoreError& error) {
      error_ = error.what();
    }
  }
  kept_.push_back(result);  // in order, after the ones the store refused before
  return std::nullopt;
}

std::int64_t ResultWriter::write(const StoredResult& result) {
  if (store_ == nullptr) return 0;
  if (std::optional<std::int64_t> row = write_or_keep(result)) return *row;
  return flush();
}

std::int64_t ResultWriter::flush() {
  std::int64_t last = 0;
  for (const auto pause : {std::chrono::milliseconds(0), std::chrono::milliseconds(500),
                           std::chrono::milliseconds(1000), std::chrono::milliseconds(2000)}) {
    if (kept_.empty()) return last;
    std::this_thread::sleep_for(pause);
    try {
      while (!kept_.empty()) {
        last = store_->record(kept_.front());
        kept_.erase(kept_.begin());
      }
    } catch (const StoreError& error) {
      error_ = error.what();
    }
  }
  if (kept_.empty()) return last;
  std::string lines;
  for (const StoredResult& result : kept_) lines += "\n  " + result_line(result);
  throw StoreError(fmt::format(
      "{}\n{} measured result(s) of tune {} could not be stored after 4 tries over 3.5 s, "
      "listed here so that none is lost (one JSON object per line):{}\nEvery other result is "
      "in the store: once it can be written again, the same tune resumes and measures only "
      "these again.",
      error_, kept_.size(), kept_.front().tune_id, lines));
}

}  // namespace cutune::tuning
