// A stand-in for cutune-cuda-worker, for testing the tuner's side on a machine without a GPU.
// It speaks the real protocol (worker_protocol.hpp) and acts out what the candidate's kernel name
// says: ok, wrong, refused (a launch error), sticky (a sticky CUDA error: reply crash and exit),
// segv (killed by a signal), hang (never answers), garbage (breaks the protocol), killed (SIGKILL,
// as from the OOM killer or a user), killed_once (the same the first time only: the request's
// cubin names a marker file it creates), no_memory (the machine's trouble: reply transient and
// exit, as the real worker does when device memory runs out). A family
// request (op "family") of family "echo" is answered ok with the request it carried, unread; any
// other family is refused as by a worker without that family's mode. Paired rounds (a request with
// rounds > 0) time each candidate that passes as block.x / 32 ms. A kernel whose symbol holds
// "echo" is ok, its detail the request it came in.
//   cutune-fake-cuda-worker --device N [--fail-start]
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "cutune/cuda/worker_protocol.hpp"

namespace proto = cutune::cuda::protocol;

int main(int argc, char** argv) {
  int sm_count = 132;
  for (int i = 1; i < argc; ++i) {
    // Device 7 stands in for a different card: fewer SMs.
    if (std::string(argv[i]) == "--device" && i + 1 < argc && std::string(argv[i + 1]) == "7") {
      sm_count = 114;
    }
    if (std::string(argv[i]) == "--fail-start") {
      std::cerr << "stand-in worker: no device here\n";
      return 1;
    }
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    auto message = nlohmann::json::parse(line);
    std::string op = message.value("op", "");
    if (op == "quit") return 0;
    if (op == "hello") {
      proto::DeviceReport device{"stand-in", 9,         0,     sm_count,      65536,
                                 50 << 20,   227 << 10, 13000, "0000:00:00.0"};
      std::cout << nlohmann::json{{"ok", true}, {"device", device}}.dump() << std::endl;
      continue;
    }
    if (op == "family") {
      const std::string family = message.value("family", "");
      if (family != "echo") {
        std::cout << nlohmann::json{{"ok", false},
                                    {"error", "this worker has no mode of family '" + family + "'"}}
                         .dump()
                  << std::endl;
        continue;
      }
      proto::MeasureReply reply;
      reply.id = message.at("request").value("id", std::uint64_t{0});
      reply.outcome = "ok";
      reply.time_ms = reply.min_ms = reply.max_ms = reply.p25_ms = reply.p75_ms = 1.0;
      reply.repetitions = 1;
      reply.detail = message.at("request").dump();
      std::cout << nlohmann::json(reply).dump() << std::endl;
      continue;
    }
    auto request = message.at("request").get<proto::MeasureRequest>();
    if (request.rounds > 0) {
      // Paired rounds: each candidate acts out its kernel name's check; one that passes takes
      // block.x / 32 ms in every round, on a clock that reads steady after three warm-up rounds.
      proto::MeasureReply reply;
      reply.id = request.id;
      reply.outcome = "ok";
      reply.warmup_rounds = 3;
      for (const proto::Launch& c : request.candidates) {
        reply.candidate_outcomes.push_back(c.kernel == "ok"      ? "ok"
                                           : c.kernel == "wrong" ? "wrong_result"
                                                                 : "launch_error");
        reply.candidate_details.push_back("stand-in " + c.kernel);
      }
      for (int r = 0; r < request.rounds; ++r) {
        std::vector<double> times;
        for (const proto::Launch& c : request.candidates) {
          times.push_back(c.kernel == "ok" ? c.block[0] / 32.0 : -1.0);
        }
        reply.round_ms.push_back(times);
        reply.round_reference_ms.push_back(-1);
        reply.round_sm_clock_mhz.push_back(1980);
        reply.round_power_w.push_back(0);
      }
      std::cout << nlohmann::json(reply).dump() << std::endl;
      continue;
    }
    const std::string& behaviour = request.candidate.kernel;
    proto::MeasureReply reply;
    reply.id = request.id;
    reply.detail = "pid " + std::to_string(::getpid());
    if (behaviour.find("echo") != std::string::npos) {  // any symbol naming it: NVRTC's too
      reply.outcome = "ok";  // no repetitions: the detail stays the reply's
      reply.detail = message.at("request").dump();
    } else if (behaviour == "ok") {
      reply.outcome = "ok";
      reply.time_ms = 1.0;
      reply.min_ms = 0.9;
      reply.max_ms = 1.1;
      reply.p25_ms = 0.98;
      reply.p75_ms = 1.03;
      reply.repetitions = 10;
      reply.max_rel_error = 1e-7;
    } else if (behaviour == "wrong") {
      reply.outcome = "wrong_result";
      reply.max_rel_error = 0.5;
    } else if (behaviour == "refused") {
      reply.outcome = "launch_error";
    } else if (behaviour == "sticky") {
      reply.outcome = "crash";
      reply.detail = "CUDA_ERROR_ILLEGAL_ADDRESS (stand-in)";
      std::cout << nlohmann::json(reply).dump() << std::endl;
      return 3;
    } else if (behaviour == "segv") {
      std::cerr << "stand-in worker: about to fault\n";
      // Die by the signal as a faulting worker does, also where a sanitizer has its own handler.
      ::signal(SIGSEGV, SIG_DFL);
      ::raise(SIGSEGV);
    } else if (behaviour == "killed" ||
               (behaviour == "killed_once" && !std::filesystem::exists(request.candidate.cubin))) {
      std::ofstream(request.candidate.cubin) << "killed once\n";
      ::raise(SIGKILL);
    } else if (behaviour == "killed_once") {
      reply.outcome = "ok";
      reply.time_ms = reply.min_ms = reply.max_ms = reply.p25_ms = reply.p75_ms = 2.0;
      reply.repetitions = 10;
    } else if (behaviour == "no_memory") {
      reply.outcome = "transient";
      reply.detail = "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (stand-in)";
      std::cout << nlohmann::json(reply).dump() << std::endl;
      return 3;
    } else if (behaviour == "hang") {
      for (;;) ::pause();
    } else if (behaviour == "garbage") {
      std::cout << "this is not JSON" << std::endl;
      continue;
    }
    std::cout << nlohmann::json(reply).dump() << std::endl;
  }
  return 0;
}
