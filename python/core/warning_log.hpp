// The runtime's warnings (store unreadable, stored config rejected), kept until the package's next
// answer hands them over in its "warnings" field. Shared by the core and GEMM libraries.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cutune/runtime.hpp"

namespace cutune::python {

class WarningLog {
 public:
  // A runtime's options: the store `db` (a `.json` file: exported winners; empty: none), read
  // only, never a tune, warnings kept here. The log must outlive the runtime.
  RuntimeOptions runtime_options(const std::string& db) {
    RuntimeOptions options;
    if (std::filesystem::path(db).extension() == ".json") {
      options.winners = db;
    } else if (!db.empty()) {
      options.store = db;
    }
    options.policy = Policy::default_now;
    options.on_warning = [this](const std::string& warning) {
      const std::lock_guard lock(mutex_);
      warnings_.push_back(warning);
    };
    return options;
  }

  std::vector<std::string> take() {
    const std::lock_guard lock(mutex_);
    return std::exchange(warnings_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> warnings_;
};

}  // namespace cutune::python
