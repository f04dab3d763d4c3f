// The CPU worker's buffers for the current problem: allocated between poisoned guards, inputs
// and inouts filled from the seed, the reference's outputs and inouts kept, everything reset
// before each run, and a run's outputs, inouts and guards checked against them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "eval/normwise_error.hpp"
#include "worker.hpp"

namespace cutune::cpu {
namespace {

std::size_t element_size(const std::string& type) {
  if (const std::size_t size = proto::element_size(type); size > 0) return size;
  throw std::invalid_argument("the cpu worker has no element type '" + type + "'");
}

// splitmix64: the same seed gives the same inputs on every machine.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
void fill_random(T* data, std::uint64_t count, std::uint64_t seed, bool positive) {
  std::uint64_t state = seed;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t bits = next_random(state);
    if constexpr (std::is_floating_point_v<T>) {
      // Magnitudes in [0.1, 1) with either sign: never zero, so a missing term shows.
      double magnitude = 0.1 + 0.9 * static_cast<double>(bits >> 11) * 0x1.0p-53;
      data[i] = static_cast<T>((bits & 1) && !positive ? -magnitude : magnitude);
    } else {
      data[i] = static_cast<T>(1 + (bits >> 1) % 15);
    }
  }
}

template <typename F>
auto by_type(const std::string& type, F&& f) {
  if (type == "f64") return f(double{});
  if (type == "f32") return f(float{});
  if (type == "i32") return f(std::int32_t{});
  if (type == "i64") return f(std::int64_t{});
  if (type == "u8") return f(std::uint8_t{});
  return f(std::uint32_t{});
}

// The buffer's eval::NormwiseError (summed for partial_sums); infinity when x holds a NaN or an
// infinity.
double relative_error(const Buffer& buffer) {
  return by_type(buffer.spec.type, [&](auto zero) {
    using T = decltype(zero);
    const T* x = reinterpret_cast<const T*>(buffer.data);
    const T* r = reinterpret_cast<const T*>(buffer.reference.data());
    eval::NormwiseError error(buffer.spec.role == "partial_sums");
    for (std::uint64_t i = 0; i < buffer.spec.count; ++i) {
      const double xi = static_cast<double>(x[i]);
      if (!std::isfinite(xi)) return std::numeric_limits<double>::infinity();
      error.add(xi, static_cast<double>(r[i]));
    }
    return error.value();
  });
}

}  // namespace

void Worker::prepare(const proto::MeasureRequest& request) {
  nlohmann::json key = {request.buffers, request.scalars, request.arguments, request.seed,
                        request.reference ? nlohmann::json(*request.reference) : nullptr};
  if (key == prepared_key_) return;
  prepared_key_ = nullptr;
  buffers_.clear();
  pointers_.clear();
  for (std::size_t i = 0; i < request.buffers.size(); ++i) {
    Buffer buffer;
    buffer.spec = request.buffers[i];
    buffer.bytes = buffer.spec.count * element_size(buffer.spec.type);
    const std::size_t total = (2 * kGuardBytes + buffer.bytes + 63) / 64 * 64;
    buffer.storage.reset(static_cast<std::byte*>(std::aligned_alloc(64, total)));
    if (!buffer.storage) {
      throw std::runtime_error("cannot allocate " + std::to_string(total) + " bytes for buffer '" +
                               buffer.spec.name + "'");
    }
    std::fill_n(buffer.storage.get(), total, kPoison);
    buffer.data = buffer.storage.get() + kGuardBytes;
    if (proto::is_filled(buffer.spec)) {
      std::memset(buffer.data, 0, buffer.bytes);
      if (buffer.spec.fill != "zero") {
        by_type(buffer.spec.type, [&](auto zero) {
          using T = decltype(zero);
          fill_random(reinterpret_cast<T*>(buffer.data), buffer.spec.count,
                      request.seed * 0x100000001b3ull + i, buffer.spec.fill == "positive");
          return 0;
        });
      }
      buffer.pristine.assign(buffer.data, buffer.data + buffer.bytes);
    }
    pointers_.push_back(buffer.data);
    buffers_.push_back(std::move(buffer));
  }
  prepare_arguments(request.arguments);
  if (request.reference) {
    proto::MeasureReply ignored;
    auto reference = load(*request.reference, ignored);
    if (!reference) throw std::runtime_error("reference kernel: " + ignored.detail);
    reset_buffers();
    reference.entry(first_argument(), request.scalars.data());
    if (std::string damage = damaged_guard(); !damage.empty()) {
      throw std::runtime_error("reference kernel: " + damage);
    }
    for (auto& buffer : buffers_) {
      if (proto::is_compared(buffer.spec)) {
        buffer.reference.assign(buffer.data, buffer.data + buffer.bytes);
      }
    }
  }
  prepared_key_ = std::move(key);
}

void Worker::prepare_arguments(const std::vector<proto::Argument>& arguments) {
  slots_.assign(arguments.size(), {});
  argument_pointers_.clear();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const proto::Argument& a = arguments[i];
    std::byte* slot = slots_[i].data();
    auto put = [&](auto value) { std::memcpy(slot, &value, sizeof value); };
    if (a.buffer >= 0) {
      put(pointers_.at(static_cast<std::size_t>(a.buffer)));
    } else if (a.type == "f32") {
      put(static_cast<float>(a.real));
    } else if (a.type == "f64") {
      put(a.real);
    } else if (a.type == "i32" || a.type == "u32") {
      put(static_cast<std::uint32_t>(a.integer));
    } else {
      put(a.integer);
    }
    argument_pointers_.push_back(slot);
  }
}

void** Worker::first_argument() {
  return argument_pointers_.empty() ? pointers_.data() : argument_pointers_.data();
}

void Worker::reset_buffers() {
  for (auto& buffer : buffers_) {
    // Guards poisoned afresh: a damage was reported for the run that did it, not the next one.
    std::fill_n(buffer.storage.get(), kGuardBytes, kPoison);
    std::fill_n(buffer.data + buffer.bytes, kGuardBytes, kPoison);
    if (proto::is_filled(buffer.spec)) {
      std::memcpy(buffer.data, buffer.pristine.data(), buffer.bytes);
    } else if (buffer.spec.role == "scratch" || buffer.spec.role == "partial_sums") {
      std::memset(buffer.data, 0, buffer.bytes);
    } else if (buffer.spec.type == "f32" || buffer.spec.type == "f64") {
      by_type(buffer.spec.type, [&](auto zero) {
        using T = decltype(zero);
        std::fill_n(reinterpret_cast<T*>(buffer.data), buffer.spec.count,
                    std::numeric_limits<T>::quiet_NaN());
        return 0;
      });
    } else {
      std::memset(buffer.data, 0x7f, buffer.bytes);
    }
  }
}

std::string Worker::verify(const proto::MeasureRequest& request, double& error) const {
  if (std::string damage = damaged_guard(); !damage.empty()) return damage;
  if (!request.reference) return {};
  for (const auto& buffer : buffers_) {
    if (!proto::is_compared(buffer.spec)) continue;
    const double e = relative_error(buffer);
    if (!(e <= request.tolerance)) {
      error = std::isfinite(e) ? e : std::numeric_limits<double>::max();
      const std::string what = buffer.spec.role + " '" + buffer.spec.name + "'";
      return std::isfinite(e) ? what + " differs from " + request.reference_name
                              : what + " holds NaN or infinity";
    }
    error = std::max(error, e);
  }
  return {};
}

std::string Worker::damaged_guard() const {
  for (const auto& buffer : buffers_) {
    const auto intact = [](const std::byte* guard) {
      return std::all_of(guard, guard + kGuardBytes, [](std::byte b) { return b == kPoison; });
    };
    if (!intact(buffer.storage.get())) {
      return "wrote before the start of buffer '" + buffer.spec.name + "'";
    }
    if (!intact(buffer.data + buffer.bytes)) {
      return "wrote past the end of buffer '" + buffer.spec.name + "'";
    }
  }
  return {};
}

}  // namespace cutune::cpu
