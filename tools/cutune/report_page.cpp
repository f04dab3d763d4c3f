#include "report_page.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "resources.hpp"

namespace cutune::cli {
namespace {

using nlohmann::json;

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// JSON inside <script>: "</" would end the element.
std::string script_json(const json& data) {
  std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  for (auto at = text.find("</"); at != std::string::npos; at = text.find("</", at)) {
    text.replace(at, 2, "<\\/");
  }
  return text;
}

json number(double x) { return std::isnan(x) ? json() : json(x); }

// The parts of the page's facts that come from the decision, or from the samples without one.
struct Verdict {
  std::string winner_config;  // JSON text
  double winner_ms = NAN;
  double default_ms = NAN;
  json winner = json::object();    // the winner's finalist entry, when there was a tournament
  double reference_ms = NAN;       // the median reference time of the rounds, when one was timed
  double default_search_ms = NAN;  // the default's search time, comparable with the samples'
};

double median_of(const json& values) {
  std::vector<double> xs;
  for (const json& v : values)
    if (v.is_number()) xs.push_back(v.get<double>());
  if (xs.empty()) return NAN;
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

Verdict verdict_of(const TuneRecord& r) {
  Verdict v;
  // The tune measures the default first.
  if (!r.samples.empty() && r.samples.front().measurement.ok())
    v.default_search_ms = r.samples.front().measurement.time_ms;
  if (r.decision) {
    v.winner_config = r.decision->winner_json;
    for (const json& f : json::parse(r.decision->finalists_json)) {
      if (f.at("config_hash") == r.decision->winner_hash) v.winner = f;
      if (f.at("role") == "default" && f.at("time_ms").is_number()) v.default_ms = f.at("time_ms");
    }
    if (v.winner.contains("time_ms") && v.winner.at("time_ms").is_number())
      v.winner_ms = v.winner.at("time_ms");
    v.reference_ms = median_of(json::parse(r.decision->rounds_json).value("reference_ms", json()));
    return v;
  }
  // No tournament recorded: the fastest sample, against the default (the tune's first sample).
  for (const Sample& s : r.samples) {
    if (s.measurement.ok() && !(v.winner_ms <= s.measurement.time_ms)) {
      v.winner_ms = s.measurement.time_ms;
      v.winner_config = s.config_json;
    }
  }
  v.default_ms = v.default_search_ms;
  return v;
}

std::string winner_section(const TuneRecord& r, const Verdict& v) {
  if (v.winner_config.empty())
    return "<p id=\"winner\">No config ran correctly: nothing won.</p>\n";
  std::string html = fmt::format("<p id=\"winner\">Winner: <code>{}</code>, {:.5g} ms.</p>\n",
                                 escape(config_text(v.winner_config)), v.winner_ms);
  if (r.decision && !std::isnan(r.decision->speedup)) {
    const Decision& d = *r.decision;
    const bool is_default = d.winner_hash == d.default_hash;
    html += fmt::format(
        "<p id=\"speedup\">{:.3f}x the default config ({:.5g} ms), 95% interval [{:.3f}, {:.3f}] "
        "over {} paired rounds.</p>\n",
        d.speedup, v.default_ms, d.speedup_low, d.speedup_high, d.rounds);
    const char* sure =
        is_default ? "No challenger was faster than the default beyond the noise: the default is "
                     "deployed."
        : d.speedup_low > 1 ? "Sure: the whole interval is above 1, so the winner is faster than "
                              "the default beyond the measured noise."
                            : "Not sure: the interval reaches 1 or below, so the winner may be no "
                              "faster than the default.";
    html += fmt::format("<p id=\"sureness\">{}</p>\n", sure);
  } else if (!std::isnan(v.default_ms)) {
    html += fmt::format(
        "<p id=\"speedup\">{:.3f}x the default config ({:.5g} ms), from single search timings: "
        "this tune recorded no tournament, so there is no interval.</p>\n",
        v.default_ms / v.winner_ms, v.default_ms);
  } else {
    html += "<p id=\"speedup\">The default config did not run correctly: no speedup over it.</p>\n";
  }
  const json reference = v.winner.value("vs_reference", json::object());
  if (reference.value("rounds", 0) > 0) {
    html += fmt::format(
        "<p id=\"reference\">{:.3f}x the reference kernel (median {:.5g} ms), 95% interval "
        "[{:.3f}, {:.3f}] over {} rounds (above 1: faster than the reference).</p>\n",
        reference.at("ratio").get<double>(), v.reference_ms, reference.at("low").get<double>(),
        reference.at("high").get<double>(), reference.at("rounds").get<int>());
  } else {
    html +=
        "<p id=\"reference\">Reference: none timed in this tune (its backend times no reference "
        "kernel alongside).</p>\n";
  }
  return html;
}

std::string knobs_section(const TuneRecord& r) {
  if (r.effects.empty()) return "<p id=\"knobs\">No knob was measured with two values.</p>\n";
  std::string items;
  for (const KnobEffect& e : r.effects) {
    const auto fastest = std::min_element(e.values.begin(), e.values.end(), [](auto& a, auto& b) {
      return a.median_ms < b.median_ms;
    });
    items += fmt::format(
        "<li><b>{}</b>: {:.2f}x between its values' median times; fastest "
        "{} ({:.5g} ms, {} samples)</li>\n",
        escape(e.knob), e.ratio, escape(fastest->value), fastest->median_ms, fastest->times.size());
  }
  return fmt::format(
      "<p>Which knobs mattered: per knob, the slowest value's median time over the fastest's, "
      "among the correct samples (larger: mattered more).</p>\n<ol id=\"knobs\">\n{}</ol>\n",
      items);
}

std::string tournament_section(const TuneRecord& r) {
  if (!r.decision) return "<p id=\"tournament\">This tune recorded no tournament.</p>\n";
  const json rounds = json::parse(r.decision->rounds_json);
  std::string rows;
  for (const json& f : json::parse(r.decision->finalists_json)) {
    const bool ok = f.at("outcome") == "ok";
    rows += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
        f.at("config_hash") == r.decision->winner_hash ? "winner" : "",
        escape(f.at("role").get<std::string>()),
        ok ? fmt::format("{:.5g}", f.at("time_ms").get<double>())
           : escape(f.at("outcome").get<std::string>()),
        ok ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", f.at("ratio").get<double>(),
                         f.at("ratio_low").get<double>(), f.at("ratio_high").get<double>())
           : std::string("-"),
        escape(config_text(f.at("config").dump())));
  }
  std::string finishing;
  for (const json& line : rounds.value("finishing", json::array()))
    finishing += "<li>" + escape(line.get<std::string>()) + "</li>\n";
  return fmt::format(
      "<p id=\"tournament\">{} paired rounds after {} warm-up rounds; steady state: {}.</p>\n"
      "<table><tr><th></th><th>role</th><th>time (ms)</th><th>default / it [95% interval]</th>"
      "<th>config</th></tr>\n{}</table>\n{}",
      rounds.value("rounds", 0), rounds.value("warmup_rounds", 0),
      escape(rounds.value("steady_state", "")), rows,
      finishing.empty() ? "" : "<p>Finishing pass:</p><ul>\n" + finishing + "</ul>\n");
}

std::string failures_section(const TuneRecord& r) {
  if (r.failures.empty()) return "<p id=\"failures\">Nothing failed.</p>\n";
  std::string rows;
  for (const FailureGroup& g : r.failures) {
    rows += fmt::format(
        "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td>"
        "</tr>\n",
        to_string(g.outcome), g.count, escape(g.first_line), escape(config_text(g.example_config)),
        g.log_path.empty() ? "in the store (cutune show --failures)" : escape(g.log_path));
  }
  return fmt::format(
      "<table id=\"failures\"><tr><th>outcome</th><th>configs</th><th>first error line</th>"
      "<th>example config</th><th>full log</th></tr>\n{}</table>\n",
      rows);
}

json plot_data(const TuneRecord& r, const Verdict& v) {
  json samples = json::array();
  for (const Sample& s : r.samples) {
    samples.push_back({{"evaluation", s.evaluation},
                       {"seconds", s.seconds},
                       {"outcome", to_string(s.measurement.outcome)},
                       {"time_ms", number(s.measurement.time_ms)},
                       {"best_ms", number(s.best_ms)},
                       {"config", config_text(s.config_json)}});
  }
  json effects = json::array();
  for (const KnobEffect& e : r.effects) {
    json values = json::array();
    for (const ValueTimes& t : e.values)
      values.push_back({{"value", t.value}, {"median_ms", t.median_ms}, {"times", t.times}});
    effects.push_back({{"knob", e.knob}, {"ratio", e.ratio}, {"values", values}});
  }
  json finalists = json::array();
  if (r.decision) {
    for (json f : json::parse(r.decision->finalists_json)) {
      f["label"] = f.at("role").get<std::string>() + " " + config_text(f.at("config").dump());
      finalists.push_back(std::move(f));
    }
  }
  return {{"samples", samples},
          {"default_ms", number(v.default_search_ms)},
          {"reference_ms", number(v.reference_ms)},
          {"effects", effects},
          {"finalists", finalists}};
}

std::string date_of(double timestamp) {
  const std::time_t t = static_cast<std::time_t>(timestamp);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
}

}  // namespace

std::string report_page(const TuneRecord& r) {
  const Verdict v = verdict_of(r);
  const TuningKey& k = r.key;
  const std::string title = fmt::format("cutune: {} {}", k.family, k.problem);
  std::size_t failed = 0;
  for (const FailureGroup& g : r.failures) failed += g.count;
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n"
      "<style>{}</style>\n<script>{}</script>\n</head><body>\n<h1>{}</h1>\n"
      "<p id=\"key\">{} on {} ({}); tune {} of {}, key {}. {} configs measured, {} failed{}.</p>\n"
      "<pre id=\"script-errors\"></pre>\n",
      escape(title), report_css(), chart_js(), escape(title), escape(k.family), escape(k.device),
      escape(k.toolchain), escape(r.tune_id),
      r.rows.empty() ? std::string("?") : date_of(r.rows.front().timestamp), k.hash(),
      r.samples.size(), failed,
      r.other_tunes_rows
          ? fmt::format("; {} rows of other tunes of this key are not shown", r.other_tunes_rows)
          : "");
  html += "<h2>Decision</h2>\n" + winner_section(r, v);
  if (!v.winner_config.empty()) {
    html += "<h3>Winning config</h3>\n<pre id=\"config\">" +
            escape(json::parse(v.winner_config).dump(2)) + "</pre>\n";
  }
  html +=
      "<h2>Convergence</h2>\n<p>The best correct time so far as the search measured it, against "
      "evaluations and against seconds since the first result; dashed lines: the default's search "
      "time and the reference's median time in the tournament.</p>\n"
      "<div class=\"pair\"><div class=\"plot\"><canvas id=\"plot-evaluations\"></canvas></div>"
      "<div class=\"plot\"><canvas id=\"plot-seconds\"></canvas></div></div>\n"
      "<h2>Every measurement</h2>\n<div class=\"plot wide\"><canvas id=\"plot-scatter\"></canvas>"
      "</div>\n<h2>Knobs</h2>\n" +
      knobs_section(r) + "<div id=\"knob-plots\" class=\"grid\"></div>\n<h2>Tournament</h2>\n" +
      tournament_section(r) +
      "<div class=\"plot wide\"><canvas id=\"plot-tournament\"></canvas></div>\n"
      "<h2>Failures</h2>\n" +
      failures_section(r);
  html += "<script id=\"report-data\" type=\"application/json\">" + script_json(plot_data(r, v)) +
          "</script>\n<script>" + std::string(report_js()) + "</script>\n</body></html>\n";
  return html;
}

}  // namespace cutune::cli
