#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "cutune/lookup.hpp"
#include "lookup/fallback.hpp"
#include "lookup/problem_text.hpp"

namespace cutune {
namespace {

using json = nlohmann::json;

// FNV-1a over the three texts with separators: cheap, and computed once per prepared query.
std::uint64_t key_hash(std::string_view family, std::string_view device, std::string_view problem) {
  std::uint64_t h = 14695981039346656037ull;
  const auto feed = [&h](std::string_view text) {
    for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
  };
  feed(family);
  feed(device);
  feed(problem);
  return h;
}

json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LookupError(path.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  json document = json::parse(text.str(), nullptr, false);
  if (document.is_discarded()) throw LookupError(path.string() + ": not JSON");
  return document;
}

// The lookup runtime's errors name what was read; a malformed problem text is one of them.
lookup::ProblemArgs parsed(std::string_view problem) {
  try {
    return lookup::parse_problem(problem);
  } catch (const std::invalid_argument& error) {
    throw LookupError(error.what());
  }
}

}  // namespace

struct LookupTable::Impl {
  struct Entry {
    std::string family, device, problem;
    lookup::ProblemArgs args;  // `problem` parsed, for the nearest-shape fallback
    LookupAnswer answer;
    double timestamp = 0;
  };
  LookupOptions options;
  std::vector<Entry> entries;
  std::unordered_multimap<std::uint64_t, std::size_t> index;  // key_hash -> entry
  std::map<std::pair<std::string, std::string>, std::vector<lookup::TunedShape>> shapes;
  std::map<std::pair<std::string, std::string>, lookup::DispatchRule> rules;  // (family, device)
  std::map<std::string, std::vector<std::string>, std::less<>> devices;       // per family

  // Untuned queries answered so far, by key_hash: resolved once, reported once.
  struct Fallback {
    std::string family, device, problem;
    std::unique_ptr<LookupAnswer> answer;
  };
  mutable std::mutex fallback_mutex;
  mutable std::unordered_multimap<std::uint64_t, Fallback> fallbacks;

  const Entry* exact(const LookupQuery& q) const {
    const auto [first, last] = index.equal_range(q.hash());
    for (auto it = first; it != last; ++it) {
      const Entry& e = entries[it->second];
      if (e.problem == q.problem() && e.device == q.device() && e.family == q.family()) return &e;
    }
    return nullptr;
  }

  // A fallback config made legal for the asked problem, when the program can (options.repair).
  std::optional<json> repaired(const LookupQuery& q, const json& config) const {
    if (!options.repair) return config;
    return options.repair(q.family(), config, q.problem());
  }

  // The dispatch rule, else the untuned-shape rule (cutune/lookup.hpp): the nearest tuned shape
  // within max_distance, else the default config.
  LookupAnswer resolve(const LookupQuery& q) const {
    const auto args = parsed(q.problem());
    const std::pair<std::string, std::string> where{q.family(), q.device()};
    LookupAnswer answer;
    if (const auto rule = rules.find(where); rule != rules.end()) {
      if (const auto pick = rule->second.pick(args)) {
        if (auto config = repaired(q, rule->second.configs[*pick])) {
          answer.config = std::move(*config);
          answer.source = LookupSource::dispatch;
          return answer;
        }
      }
    }
    const auto family_shapes = shapes.find(where);
    const auto nearest = family_shapes == shapes.end()
                             ? std::nullopt
                             : lookup::nearest_shape(family_shapes->second, args);
    if (nearest && nearest->second <= options.max_distance) {
      const Entry& e = entries[family_shapes->second[nearest->first].answer];
      if (auto config = repaired(q, e.answer.config)) {
        answer = e.answer;
        answer.config = std::move(*config);
        answer.source = LookupSource::nearest;
        answer.distance = nearest->second;
        return answer;
      }
    }
    answer.source = LookupSource::default_config;
    if (options.default_config) answer.config = options.default_config(q.family(), q.problem());
    return answer;
  }
};

LookupTable::LookupTable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LookupTable::LookupTable(LookupTable&&) noexcept = default;
LookupTable& LookupTable::operator=(LookupTable&&) noexcept = default;
LookupTable::~LookupTable() = default;

LookupTable LookupTable::load(const std::filesystem::path& path, LookupOptions options) {
  return from_json(read_json_file(path), std::move(options), path.string());
}

LookupTable LookupTable::from_json(const json& document, LookupOptions options,
                                   std::string_view origin) {
  const std::string where(origin);
  if (!document.is_object() || document.value("format", "") != "cutune-best" ||
      !document.contains("results") || !document.at("results").is_array()) {
    throw LookupError(where +
                      ": not what `cutune export --json` writes (\"format\": \"cutune-best\")");
  }
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  for (const json& row : document.at("results")) {
    Impl::Entry e;
    try {
      e.family = row.at("family").get<std::string>();
      e.device = row.at("device").get<std::string>();
      e.args = parsed(row.at("problem").get<std::string>());
      e.problem = lookup::canonical_problem(e.args);
      e.answer.config = row.at("config");
      e.answer.tuned_problem = e.problem;
      e.answer.time_ms =
          row.value("time_ms", json()).is_number() ? row.at("time_ms").get<double>() : 0;
      e.timestamp =
          row.value("timestamp", json()).is_number() ? row.at("timestamp").get<double>() : 0;
    } catch (const json::exception& error) {
      throw LookupError(where + ": results/" + std::to_string(impl->entries.size()) + ": " +
                        error.what());
    }
    if (!e.answer.config.is_object()) throw LookupError(where + ": a config is not an object");
    const std::uint64_t h = key_hash(e.family, e.device, e.problem);
    const auto [first, last] = impl->index.equal_range(h);
    const auto same = std::find_if(first, last, [&](const auto& hit) {
      const Impl::Entry& old = impl->entries[hit.second];
      return old.family == e.family && old.device == e.device && old.problem == e.problem;
    });
    if (same != last) {  // one entry per key: the latest export row
      Impl::Entry& old = impl->entries[same->second];
      if (e.timestamp >= old.timestamp) old = std::move(e);
      continue;
    }
    impl->index.emplace(h, impl->entries.size());
    impl->entries.push_back(std::move(e));
  }
  for (std::size_t i = 0; i < impl->entries.size(); ++i) {
    const Impl::Entry& e = impl->entries[i];
    impl->shapes[{e.family, e.device}].push_back({e.args, i});
    auto& devices = impl->devices[e.family];
    if (std::find(devices.begin(), devices.end(), e.device) == devices.end()) {
      devices.push_back(e.device);
    }
  }
  return LookupTable(std::move(impl));
}

void LookupTable::add_dispatch(const json& rule, std::string_view origin) {
  lookup::DispatchRule parsed = lookup::DispatchRule::from_json(rule, origin);
  auto& devices = impl_->devices[parsed.family];
  if (std::find(devices.begin(), devices.end(), parsed.device) == devices.end()) {
    devices.push_back(parsed.device);
  }
  const std::pair<std::string, std::string> where{parsed.family, parsed.device};
  impl_->rules.insert_or_assign(where, std::move(parsed));
}

void LookupTable::add_dispatch_file(const std::filesystem::path& path) {
  add_dispatch(read_json_file(path), path.string());
}

LookupQuery LookupTable::prepare(std::string_view family, std::string_view problem,
                                 std::string_view device) const {
  LookupQuery q;
  q.family_ = family;
  q.problem_ = lookup::canonical_problem(parsed(problem));
  q.device_ = device;
  if (device.empty()) {
    const auto it = impl_->devices.find(family);
    if (it == impl_->devices.end()) {
      throw LookupError("cutune: no tuned config of family '" + std::string(family) + "'");
    }
    if (it->second.size() != 1) {
      std::string names;
      for (const auto& d : it->second) names += (names.empty() ? "'" : ", '") + d + "'";
      throw LookupError("cutune: family '" + std::string(family) +
                        "' was tuned on several devices; name one of " + names);
    }
    q.device_ = it->second.front();
  }
  q.hash_ = key_hash(q.family_, q.device_, q.problem_);
  return q;
}

const LookupAnswer& LookupTable::find(const LookupQuery& query) const {
  if (const Impl::Entry* e = impl_->exact(query)) return e->answer;
  const LookupAnswer* answer = nullptr;
  {
    std::lock_guard lock(impl_->fallback_mutex);
    const auto [first, last] = impl_->fallbacks.equal_range(query.hash());
    for (auto it = first; it != last; ++it) {
      const Impl::Fallback& f = it->second;
      if (f.problem == query.problem() && f.device == query.device() &&
          f.family == query.family()) {
        return *f.answer;
      }
    }
    auto resolved = std::make_unique<LookupAnswer>(impl_->resolve(query));
    resolved->message = lookup::untuned_message(query.family(), query.problem(), query.device(),
                                                *resolved, impl_->options.max_distance);
    answer = resolved.get();
    impl_->fallbacks.emplace(query.hash(), Impl::Fallback{query.family(), query.device(),
                                                          query.problem(), std::move(resolved)});
  }
  LookupEvent event{query.family(), query.problem(), query.device(), answer, answer->message};
  if (impl_->options.on_fallback) {
    impl_->options.on_fallback(event);
  } else {
    std::fprintf(stderr, "cutune: %s\n", event.message.c_str());
  }
  return *answer;
}

std::size_t LookupTable::size() const { return impl_->entries.size(); }

std::string_view to_string(LookupSource source) {
  switch (source) {
    case LookupSource::tuned:
      return "store";
    case LookupSource::dispatch:
      return "dispatch";
    case LookupSource::nearest:
      return "nearest";
    case LookupSource::default_config:
      return "default_config";
  }
  return "unknown";
}

}  // namespace cutune
