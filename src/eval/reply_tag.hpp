// How a worker marks its reply to one request, so that the tuner tells it from anything else that
// reaches the reply pipe (a kernel runs in the worker's process and may write into any of its
// descriptors): the request carries "seq", and the reply line starts with "@SEQ ". Header-only:
// the workers include it without linking the tuner's libraries.
#pragma once

#include <cstdint>
#include <string>

namespace cutune::eval {

inline std::string reply_tag(std::int64_t seq) {
  std::string tag(1, '@');
  tag += std::to_string(seq);
  tag += ' ';
  return tag;
}

}  // namespace cutune::eval
