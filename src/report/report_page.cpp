// The tune report page (cutune/report.hpp): the facts as HTML text, the plots as the page's
// script draws them from the same data.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "cutune/report.hpp"
#include "resources.hpp"

namespace cutune::report {
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

// A fact's number; NaN when it is null.
double num(const json& value) { return value.is_number() ? value.get<double>() : NAN; }

std::string config_of(const json& config) { return config_text(config.dump()); }

std::string winner_section(const json& facts) {
  const json& winner = facts.at("winner");
  if (winner.is_null()) return "<p id=\"winner\">No config ran correctly: nothing won.</p>\n";
  std::string html = fmt::format("<p id=\"winner\">Winner: <code>{}</code>, {:.5g} ms.</p>\n",
                                 escape(config_of(winner.at("config"))), num(winner.at("time_ms")));
  const json& speedup = facts.at("speedup");
  const double default_ms = num(facts.at("default").at("time_ms"));
  if (speedup.is_null()) {
    html += "<p id=\"speedup\">The default config did not run correctly: no speedup over it.</p>\n";
  } else if (speedup.at("from") == "tournament") {
    html += fmt::format(
        "<p id=\"speedup\">{:.3f}x the default config ({:.5g} ms), 95% interval [{:.3f}, {:.3f}] "
        "over {} paired rounds.</p>\n",
        num(speedup.at("ratio")), default_ms, num(speedup.at("low")), num(speedup.at("high")),
        speedup.at("rounds").get<int>());
  } else {
    html += fmt::format(
        "<p id=\"speedup\">{:.3f}x the default config ({:.5g} ms), from single search timings: "
        "this tune recorded no tournament, so there is no interval.</p>\n",
        num(speedup.at("ratio")), default_ms);
  }
  if (const json& sure = facts.at("sureness"); !sure.is_null()) {
    html += fmt::format("<p id=\"sureness\">{}</p>\n", escape(sure.at("text").get<std::string>()));
  }
  if (const json& reference = facts.at("reference"); !reference.is_null()) {
    html += fmt::format(
        "<p id=\"reference\">{:.3f}x the reference kernel (median {:.5g} ms), 95% interval "
        "[{:.3f}, {:.3f}] over {} rounds (above 1: faster than the reference).</p>\n",
        num(reference.at("ratio")), num(reference.at("median_ms")), num(reference.at("low")),
        num(reference.at("high")), reference.at("rounds").get<int>());
  } else {
    html +=
        "<p id=\"reference\">Reference: none timed in this tune (its backend times no reference "
        "kernel alongside).</p>\n";
  }
  return html;
}

std::string knobs_section(const json& knobs) {
  if (knobs.empty()) return "<p id=\"knobs\">No knob was measured with two values.</p>\n";
  std::string items;
  for (const json& k : knobs) {
    const json& fastest = k.at("fastest");
    items += fmt::format(
        "<li><b>{}</b>: {:.2f}x between its values' median times; fastest "
        "{} ({:.5g} ms, {} samples)</li>\n",
        escape(k.at("knob").get<std::string>()), num(k.at("ratio")),
        escape(fastest.at("value").get<std::string>()), num(fastest.at("median_ms")),
        fastest.at("samples").get<std::size_t>());
  }
  return fmt::format(
      "<p>Which knobs mattered: per knob, the slowest value's median time over the fastest's, "
      "among the correct samples (larger: mattered more).</p>\n<ol id=\"knobs\">\n{}</ol>\n",
      items);
}

std::string tournament_section(const json& tournament) {
  if (tournament.is_null()) return "<p id=\"tournament\">This tune recorded no tournament.</p>\n";
  std::string rows;
  for (const json& f : tournament.at("finalists")) {
    const bool ok = f.at("outcome") == "ok";
    rows += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
        f.at("winner").get<bool>() ? "winner" : "", escape(f.at("role").get<std::string>()),
        ok ? fmt::format("{:.5g}", num(f.at("time_ms")))
           : escape(f.at("outcome").get<std::string>()),
        ok ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", num(f.at("ratio")), num(f.at("ratio_low")),
                         num(f.at("ratio_high")))
           : std::string("-"),
        escape(config_of(f.at("config"))));
  }
  std::string finishing;
  for (const json& line : tournament.at("finishing"))
    finishing += "<li>" + escape(line.get<std::string>()) + "</li>\n";
  return fmt::format(
      "<p id=\"tournament\">{} paired rounds after {} warm-up rounds; steady state: {}.</p>\n"
      "<table><tr><th></th><th>role</th><th>time (ms)</th><th>default / it [95% interval]</th>"
      "<th>config</th></tr>\n{}</table>\n{}",
      tournament.at("rounds").get<int>(), tournament.at("warmup_rounds").get<int>(),
      escape(tournament.at("steady_state").get<std::string>()), rows,
      finishing.empty() ? "" : "<p>Finishing pass:</p><ul>\n" + finishing + "</ul>\n");
}

std::string failures_section(const json& failures) {
  if (failures.empty()) return "<p id=\"failures\">Nothing failed.</p>\n";
  std::string rows;
  for (const json& g : failures) {
    rows += fmt::format(
        "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td>"
        "</tr>\n",
        escape(g.at("outcome").get<std::string>()), g.at("configs").get<std::size_t>(),
        escape(g.at("first_error_line").get<std::string>()),
        escape(config_of(g.at("example_config"))),
        g.at("log").is_null() ? "in the store (cutune show --failures)"
                              : escape(g.at("log").get<std::string>()));
  }
  return fmt::format(
      "<table id=\"failures\"><tr><th>outcome</th><th>configs</th><th>first error line</th>"
      "<th>example config</th><th>full log</th></tr>\n{}</table>\n",
      rows);
}

// What the page's script plots (report.js), taken from the facts.
json plot_data(const json& facts) {
  json finalists = json::array();
  if (!facts.at("tournament").is_null()) {
    for (json f : facts.at("tournament").at("finalists")) {
      f["label"] = f.at("role").get<std::string>() + " " + config_of(f.at("config"));
      finalists.push_back(std::move(f));
    }
  }
  const json& tournament = facts.at("tournament");
  return {{"samples", facts.at("convergence")},
          {"default_ms", facts.at("default").at("search_time_ms")},
          {"reference_ms", tournament.is_null() ? json() : tournament.at("reference_median_ms")},
          {"effects", facts.at("knobs")},
          {"finalists", finalists}};
}

}  // namespace

std::string report_page(const TuneRecord& r) {
  const json facts = report_facts(r);
  const TuningKey& k = r.key;
  const std::string title = fmt::format("cutune: {} {}", k.family, k.problem);
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n"
      "<style>{}</style>\n<script>{}</script>\n</head><body>\n<h1>{}</h1>\n"
      "<p id=\"key\">{} on {} ({}); tune {} of {}, key {}. {} configs measured, {} failed{}.</p>\n"
      "<pre id=\"script-errors\"></pre>\n",
      escape(title), report_css(), chart_js(), escape(title), escape(k.family), escape(k.device),
      escape(k.toolchain), escape(r.tune_id),
      facts.at("started").is_null() ? std::string("?") : facts.at("started").get<std::string>(),
      k.hash(), facts.at("configs_measured").get<std::size_t>(),
      facts.at("configs_failed").get<std::size_t>(),
      r.other_tunes_rows
          ? fmt::format("; {} rows of other tunes of this key are not shown", r.other_tunes_rows)
          : "");
  html += "<h2>Decision</h2>\n" + winner_section(facts);
  if (const json& winner = facts.at("winner"); !winner.is_null()) {
    html += "<h3>Winning config</h3>\n<pre id=\"config\">" + escape(winner.at("config").dump(2)) +
            "</pre>\n";
  }
  html +=
      "<h2>Convergence</h2>\n<p>The best correct time so far as the search measured it, against "
      "evaluations and against seconds since the first result; dashed lines: the default's search "
      "time and the reference's median time in the tournament.</p>\n"
      "<div class=\"pair\"><div class=\"plot\"><canvas id=\"plot-evaluations\"></canvas></div>"
      "<div class=\"plot\"><canvas id=\"plot-seconds\"></canvas></div></div>\n"
      "<h2>Every measurement</h2>\n<div class=\"plot wide\"><canvas id=\"plot-scatter\"></canvas>"
      "</div>\n<h2>Knobs</h2>\n" +
      knobs_section(facts.at("knobs")) +
      "<div id=\"knob-plots\" class=\"grid\"></div>\n<h2>Tournament</h2>\n" +
      tournament_section(facts.at("tournament")) +
      "<div class=\"plot wide\"><canvas id=\"plot-tournament\"></canvas></div>\n"
      "<h2>Failures</h2>\n" +
      failures_section(facts.at("failures"));
  html += "<script id=\"report-data\" type=\"application/json\">" + script_json(plot_data(facts)) +
          "</script>\n<script>" + std::string(report_js()) + "</script>\n</body></html>\n";
  return html;
}

}  // namespace cutune::report
