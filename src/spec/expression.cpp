#include "expression.hpp"

#include <muParser.h>

#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>

#include "cppgen/cpp_writer.hpp"

namespace cutune {
namespace {

enum class Source { knob, knob_index, knob_element, problem, device };
enum class DeviceField { smem_per_block, sm_count, regs_per_sm, cc };

struct Binding {
  std::string name;
  Source source = Source::knob;
  std::size_t knob = 0;
  std::size_t element = 0;
  std::vector<Value> choices;  // knob_index: the knob's full view, whose positions are the values
  double fallback = 0;         // problem: the spec's default
  DeviceField device = DeviceField::cc;
};

double number_of(const Value& v) {
  if (v.is_bool()) return v.as_bool() ? 1.0 : 0.0;
  if (v.is_int()) return static_cast<double>(v.as_int());
  return v.as_double();
}

double modulo(double a, double b) { return std::fmod(a, b); }
double floor_of(double x) { return std::floor(x); }
double ceil_of(double x) { return std::ceil(x); }
double ceil_divide(double a, double b) { return std::ceil(a / b); }

}  // namespace

struct Expression::Impl {
  std::string text;
  std::vector<Binding> bindings;  // only the names the expression uses
  bool uses_knobs = false;
  mutable std::mutex mutex;
  mutable std::vector<double> slots;  // muparser reads variables from here; never resized
  mutable mu::Parser parser;

  double evaluate(const Config* config, const Problem& problem, const Device& device) const {
    std::lock_guard lock(mutex);
    for (std::size_t i = 0; i < bindings.size(); ++i)
      slots[i] = value_of(bindings[i], config, problem, device);
    try {
      return parser.Eval();
    } catch (const mu::Parser::exception_type& error) {
      throw std::runtime_error("expression '" + text + "': " + error.GetMsg());
    }
  }

  double value_of(const Binding& b, const Config* config, const Problem& problem,
                  const Device& device) const {
    switch (b.source) {
      case Source::problem:
        return problem.has(b.name) ? number_of(problem.at(b.name)) : b.fallback;
      case Source::device:
        switch (b.device) {
          case DeviceField::smem_per_block:
            return static_cast<double>(device.smem_per_block);
          case DeviceField::sm_count:
            return device.sm_count;
          case DeviceField::regs_per_sm:
            return device.regs_per_sm;
          case DeviceField::cc:
            return device.cc_major * 10 + device.cc_minor;
        }
        return 0;
      default:
        break;
    }
    if (config == nullptr) {
      throw std::logic_error("expression '" + text + "' names knob " + b.name +
                             " but was evaluated without a config");
    }
    const Value& v = config->at(b.knob);
    if (b.source == Source::knob) return number_of(v);
    if (b.source == Source::knob_element) return number_of(v.as_list().at(b.element));
    for (std::size_t i = 0; i < b.choices.size(); ++i) {
      if (b.choices[i] == v) return static_cast<double>(i);
    }
    return -1;
  }
};

const std::string& Expression::text() const {
  static const std::string empty;
  return impl_ ? impl_->text : empty;
}

bool Expression::uses_knobs() const { return impl_ && impl_->uses_knobs; }

double Expression::evaluate(const Problem& problem, const Device& device) const {
  if (!impl_) throw std::logic_error("evaluating an empty expression");
  return impl_->evaluate(nullptr, problem, device);
}

double Expression::evaluate(const Config& config, const Problem& problem,
                            const Device& device) const {
  if (!impl_) throw std::logic_error("evaluating an empty expression");
  return impl_->evaluate(&config, problem, device);
}

bool Expression::holds(const Config& config, const Problem& problem, const Device& device) const {
  double value = evaluate(config, problem, device);
  return value != 0 && !std::isnan(value);
}

namespace spec {

Expression compile_expression(const std::string& text, const Scope& scope) {
  std::vector<Binding> candidates;
  std::vector<std::pair<std::string, double>> constants;
  std::set<std::string> names;
  auto claim = [&](const std::string& name, const std::string& what) {
    if (!names.insert(name).second) {
      throw std::invalid_argument("the name '" + name + "' (" + what +
                                  ") is defined twice in expressions; rename a knob or argument");
    }
  };

  if (scope.space != nullptr) {
    const Space& space = *scope.space;
    for (std::size_t k = 0; k < space.knob_count(); ++k) {
      const std::string& name = space.names()[k];
      const Value& example = space.fragment(k).default_value();
      if (example.is_list()) {
        for (std::size_t e = 0; e < example.as_list().size(); ++e) {
          if (example.as_list()[e].is_string()) continue;
          auto element = name + "_" + std::to_string(e);
          claim(element, "element of knob " + name);
          candidates.push_back({element, Source::knob_element, k, e, {}, 0, {}});
        }
      } else if (example.is_string()) {
        claim(name, "knob");
        auto choices = space.fragment(k).values(View::full);
        for (std::size_t i = 0; i < choices.size(); ++i) {
          auto constant = name + "_" + choices[i].as_string();
          if (!cppgen::is_identifier(constant)) continue;
          claim(constant, "choice of knob " + name);
          constants.emplace_back(constant, static_cast<double>(i));
        }
        candidates.push_back({name, Source::knob_index, k, 0, std::move(choices), 0, {}});
      } else {
        claim(name, "knob");
        candidates.push_back({name, Source::knob, k, 0, {}, 0, {}});
      }
    }
  }
  for (const auto& [name, fallback] : scope.problem) {
    claim(name, "problem argument");
    candidates.push_back({name, Source::problem, 0, 0, {}, fallback, {}});
  }
  for (auto [name, field] : {std::pair{"device_smem_per_block", DeviceField::smem_per_block},
                             {"device_sm_count", DeviceField::sm_count},
                             {"device_regs_per_sm", DeviceField::regs_per_sm},
                             {"device_cc", DeviceField::cc}}) {
    claim(name, "device property");
    candidates.push_back({name, Source::device, 0, 0, {}, 0, field});
  }

  auto impl = std::make_shared<Expression::Impl>();
  impl->text = text;
  auto& parser = impl->parser;
  auto known_names = [&] {
    std::string known;
    for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
    return " (names in scope: " + known + ")";
  };
  try {
    parser.DefineOprt("%", modulo, mu::prMUL_DIV, mu::oaLEFT, true);
    parser.DefineFun("floor", floor_of);
    parser.DefineFun("ceil", ceil_of);
    parser.DefineFun("cdiv", ceil_divide);
    for (const auto& [name, value] : constants) parser.DefineConst(name, value);
    parser.SetExpr(text);
    // Undefined names are collected here rather than rejected: name them all in one message.
    for (const auto& [name, unused] : parser.GetUsedVar()) {
      if (names.count(name) == 0) {
        throw std::invalid_argument("expression '" + text + "': unknown name '" + name + "'" +
                                    known_names());
      }
    }
    auto used = parser.GetUsedVar();
    for (auto& candidate : candidates) {
      if (used.count(candidate.name) != 0) impl->bindings.push_back(std::move(candidate));
    }
    impl->slots.assign(impl->bindings.size(), 1.0);
    for (std::size_t i = 0; i < impl->bindings.size(); ++i) {
      parser.DefineVar(impl->bindings[i].name, &impl->slots[i]);
      auto source = impl->bindings[i].source;
      if (source != Source::problem && source != Source::device) impl->uses_knobs = true;
    }
    parser.SetExpr(text);
    parser.Eval();  // syntax errors surface on the first evaluation
  } catch (const mu::Parser::exception_type& error) {
    throw std::invalid_argument("expression '" + text + "': " + error.GetMsg() + known_names());
  }
  return Expression(std::move(impl));
}

}  // namespace spec
}  // namespace cutune
