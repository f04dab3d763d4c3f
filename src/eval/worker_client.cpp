#include "worker_client.hpp"

#include <unistd.h>

#include <csignal>
#include <fstream>
#include <system_error>

#include "reply_tag.hpp"

namespace cutune::eval {
namespace {

constexpr std::streamoff stderr_tail_bytes = 2000;

}  // namespace

bool WorkerReply::killed_from_outside() const {
  return status == Status::died &&
         (signal == SIGKILL || signal == SIGTERM || signal == SIGINT || signal == SIGHUP);
}

WorkerClient::WorkerClient(std::vector<std::string> argv, std::filesystem::path stderr_log,
                           bool tagged)
    : argv_(std::move(argv)), stderr_log_(std::move(stderr_log)), tagged_(tagged) {
  if (argv_.empty()) throw std::invalid_argument("WorkerClient: empty worker command line");
  if (stderr_log_.empty()) {
    auto pattern = (std::filesystem::temp_directory_path() / "cutune-worker-XXXXXX.log").string();
    int fd = ::mkstemps(pattern.data(), 4);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "worker log " + pattern);
    ::close(fd);
    stderr_log_ = pattern;
    own_log_ = true;
  }
}

WorkerClient::~WorkerClient() {
  stop();
  if (own_log_) {
    std::error_code ignored;
    std::filesystem::remove(stderr_log_, ignored);
  }
}

void WorkerClient::stop() {
  if (!child_) return;
  // A polite quit first, so a healthy worker can clean up; the destructor kills it otherwise.
  child_->write_all("{\"op\":\"quit\"}\n");
  child_->close_stdin();
  child_->wait_until(Clock::now() + std::chrono::milliseconds(200));
  child_.reset();
}

std::string WorkerClient::stderr_tail() const {
  std::ifstream in(stderr_log_, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::streamoff size = in.tellg();
  std::streamoff start = size > stderr_tail_bytes ? size - stderr_tail_bytes : 0;
  in.seekg(start);
  std::string tail(static_cast<std::size_t>(size - start), '\0');
  in.read(tail.data(), size - start);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  return tail;
}

WorkerReply WorkerClient::request(const nlohmann::json& message, std::chrono::milliseconds limit) {
  auto start = Clock::now();
  WorkerReply reply;
  auto finish = [&](WorkerReply::Status status, std::string detail) {
    reply.status = status;
    auto tail = stderr_tail();
    reply.detail = tail.empty() ? std::move(detail) : detail + "; worker stderr: " + tail;
    child_.reset();
    reply.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return reply;
  };

  if (!child_) {
    // Each worker's log starts empty, so that a crash report shows only this worker's words.
    std::ofstream(stderr_log_, std::ios::trunc);
    child_ = std::make_unique<ChildProcess>(
        argv_, ChildProcess::Options{.pipe_stdin = true, .stderr_file = stderr_log_});
    ++starts_;
  }
  std::string tag;
  std::string line;
  if (tagged_) {
    nlohmann::json numbered = message;
    numbered["seq"] = ++seq_;
    tag = reply_tag(seq_);
    line = numbered.dump();
  } else {
    line = message.dump();
  }
  line += '\n';
  const StarvationProbe probe;
  const double cpu_before = process_cpu_seconds(child_->pid());
  const double wait_before = process_wait_seconds(child_->pid());
  bool sent = child_->write_all(line);
  std::string answer;
  auto read = sent ? child_->read_line(answer, start + limit) : ChildProcess::Read::eof;
  if (read == ChildProcess::Read::timeout) {
    const double wait_now = process_wait_seconds(child_->pid());
    reply.starvation = probe.judge(process_cpu_seconds(child_->pid()) - cpu_before,
                                   std::chrono::duration<double>(limit).count(),
                                   wait_now < 0 || wait_before < 0 ? -1 : wait_now - wait_before);
    child_->kill_group();
    child_->wait();
    return finish(WorkerReply::Status::timeout,
                  "no reply within " + std::to_string(limit.count()) + " ms; worker killed");
  }
  if (read == ChildProcess::Read::eof) {
    auto status = child_->wait_until(Clock::now() + std::chrono::seconds(2));
    if (!status) {
      child_->kill_group();
      status = child_->wait();
    }
    if (!status->exited) reply.signal = status->code;
    return finish(WorkerReply::Status::died, "worker ended with " + status->describe());
  }
  if (!answer.starts_with(tag)) {
    // Not the worker's reply: what the candidate wrote into the worker's descriptors.
    child_->kill_group();
    child_->wait();
    return finish(WorkerReply::Status::died,
                  "the candidate wrote into the worker's reply pipe, which broke the protocol: '" +
                      answer.substr(0, 200) + "'");
  }
  answer.erase(0, tag.size());
  try {
    reply.body = nlohmann::json::parse(answer);
  } catch (const nlohmann::json::parse_error& error) {
    child_->kill_group();
    child_->wait();
    return finish(
        WorkerReply::Status::died,
        "worker broke the protocol (" + std::string(error.what()) + "): " + answer.substr(0, 200));
  }
  reply.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return reply;
}

}  // namespace cutune::eval
