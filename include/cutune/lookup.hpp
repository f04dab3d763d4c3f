// The lookup-only runtime: what `cutune export --json` (the winner of every tuned key) and `cutune
// export --dispatch --json` (a family's shape dispatch rule) wrote, read into memory, answering
// "which config for this family, problem and device?" with no store, no compiler, no spec and no
// kernel source. It links nothing beyond the C++ standard library (and nlohmann-json, header-only),
// so a program that only deploys tuned configs carries none of the tuner's dependencies.
//
//   auto table = cutune::LookupTable::load("winners.json");
//   table.add_dispatch_file("gemm_dispatch.json");             // optional
//   const auto query = table.prepare("gemm", "m=4096,n=4096,k=4096,dtype=bf16", "NVIDIA H200
//   sm_90"); const cutune::LookupAnswer& answer = table.find(query);     // a hash lookup once
//   prepared launch(answer.config.at("BM").get<int>(), ...);
//
// A problem that was tuned gets its winner. An untuned one gets, in order: the family's dispatch
// rule for the device when one was added; else the one rule for an untuned shape that
// cutune::Runtime follows too: the winner of the nearest tuned shape of the same family and device
// (same argument names and equal non-numeric arguments such as dtype; distance in log2 of the
// numeric arguments) when it lies within LookupOptions::max_distance, repaired for the shape when
// LookupOptions::repair is given; else the family's default config (LookupOptions::default_config,
// or a null config the program replaces by its own default). Every fallback is reported once per
// query through LookupOptions::on_fallback, with a message that names which.
//
// Throws: load/from_json/add_dispatch* throw LookupError naming the file and field; prepare throws
// LookupError for a malformed problem text; find never throws for an untuned shape (it falls back
// as above). Thread-safe: any number of threads may call prepare()
// and find() at once once loading is done.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cutune {

class LookupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where an answer came from.
enum class LookupSource { tuned, dispatch, nearest, default_config };
// "store", "dispatch", "nearest", "default_config": the names KernelOrigin uses
// (cutune/family.hpp).
std::string_view to_string(LookupSource source);

// How far (Euclidean over log2(1 + x) of the numeric problem arguments) the nearest tuned shape
// may lie for its config to stand in for an untuned one: 1 is one argument doubled. Farther, the
// family's default config is the better guess.
inline constexpr double kNearestShapeDistance = 1.0;

struct LookupAnswer {
  nlohmann::json config;  // knob name -> value
  LookupSource source = LookupSource::tuned;
  std::string tuned_problem;  // canonical problem of the winner used (empty for dispatch)
  double time_ms = 0;         // its measured time on tuned_problem (0 for dispatch)
  double distance = 0;        // nearest: log2-space distance from the asked problem
  // Why this answer, for a fallback: the line LookupEvent::message carries.
  std::string message;
};

// Told once per distinct untuned (family, problem, device) that was answered by a fallback.
struct LookupEvent {
  std::string family, problem, device;  // as asked, problem canonical
  const LookupAnswer* answer = nullptr;
  std::string message;  // one line: "gemm 'm=..' on '..' is untuned; using the nearest ..."
};

struct LookupOptions {
  // Empty: the message is printed to stderr. Called from the thread whose find() fell back.
  std::function<void(const LookupEvent&)> on_fallback = {};
  double max_distance = kNearestShapeDistance;
  // A program that has the family's space makes fallback configs legal for the asked problem
  // (Space::normalize); nullopt: no legal config, so the default is used. Empty: as tuned.
  std::function<std::optional<nlohmann::json>(
      const std::string& family, const nlohmann::json& config, const std::string& problem)>
      repair = {};
  // The family's default config for a problem (cutune::default_config). Empty: a null config.
  std::function<nlohmann::json(const std::string& family, const std::string& problem)>
      default_config = {};
};

// A (family, problem, device) with its text canonical and its hash computed once.
class LookupQuery {
 public:
  const std::string& family() const { return family_; }
  const std::string& problem() const { return problem_; }  // canonical: sorted name=value
  const std::string& device() const { return device_; }
  std::uint64_t hash() const { return hash_; }

 private:
  friend class LookupTable;
  std::string family_, problem_, device_;
  std::uint64_t hash_ = 0;
};

class LookupTable {
 public:
  // `cutune export --json` output ("format": "cutune-best"), from a file or parsed.
  static LookupTable load(const std::filesystem::path& path, LookupOptions options = {});
  static LookupTable from_json(const nlohmann::json& document, LookupOptions options = {},
                               std::string_view origin = "winners JSON");
  LookupTable(LookupTable&&) noexcept;
  LookupTable& operator=(LookupTable&&) noexcept;
  ~LookupTable();

  // A dispatch rule (`cutune export --dispatch --json`, "format": "cutune-dispatch"): consulted for
  // its family and device before the nearest tuned shape. Call before other threads use the table.
  void add_dispatch(const nlohmann::json& rule, std::string_view origin = "dispatch JSON");
  void add_dispatch_file(const std::filesystem::path& path);

  // `problem` as cutune writes it ("m=512,n=512,k=512", any order). An empty device picks the
  // family's only device in the table (LookupError when it has several).
  LookupQuery prepare(std::string_view family, std::string_view problem,
                      std::string_view device = {}) const;
  // The answer for a query; the reference stays valid for the table's life.
  const LookupAnswer& find(const LookupQuery& query) const;

  std::size_t size() const;  // tuned keys held

 private:
  struct Impl;
  explicit LookupTable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune
