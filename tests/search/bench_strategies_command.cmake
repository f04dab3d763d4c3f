# Runs `cutune bench-strategies` on the test spaces with a small budget and checks its outputs.
file(REMOVE_RECURSE "${OUT}")
execute_process(
  COMMAND "${CUTUNE}" bench-strategies "${SPACES}" --budget 30 --repeats 2
          --strategies random,lfbo --effort quick --out "${OUT}"
  OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "bench-strategies failed (${status}):\n${output}\n${errors}")
endif()
# The T4 file records the same space as the cache file: benchmarked once.
foreach(expected "skipping convolution_milo/A100_T4: the same recording as convolution_milo/A100"
                 "convolution_milo/A100 " "convolution_milo/A4000 " "convolution_milo/MI250X "
                 "random-expected" "lfbo" "mean score")
  string(FIND "${output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing \"${expected}\" in the output:\n${output}")
  endif()
endforeach()
file(READ "${OUT}/strategy_summary.csv" summary)
string(REGEX MATCHALL "\n" lines "${summary}")
list(LENGTH lines line_count)
# One row per (space, strategy): 3 spaces x 2 strategies.
if(NOT line_count EQUAL 7)
  message(FATAL_ERROR "expected a header and 6 rows in strategy_summary.csv:\n${summary}")
endif()
file(READ "${OUT}/strategy_curves.csv" curves)
string(FIND "${curves}" "convolution_milo/A100,lfbo,30," at)
if(at EQUAL -1)
  message(FATAL_ERROR "strategy_curves.csv lacks the last lfbo point")
endif()
file(READ "${OUT}/strategy_curves.svg" svg)
string(FIND "${svg}" "<polyline" at)
if(at EQUAL -1)
  message(FATAL_ERROR "strategy_curves.svg has no curve")
endif()
# Searches run through tune() in batches of 32 by default; --batch 1 hands the evaluator one
# candidate per call (the "per call" column) on every space.
string(FIND "${output}" "budget 30, batch 32," at)
if(at EQUAL -1)
  message(FATAL_ERROR "the default batch is not 32:\n${output}")
endif()
execute_process(
  COMMAND "${CUTUNE}" bench-strategies "${SPACES}" --budget 10 --repeats 1 --strategies random
          --batch 1 --out "${OUT}/serial"
  OUTPUT_VARIABLE serial ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "bench-strategies --batch 1 failed (${status}):\n${serial}\n${errors}")
endif()
string(REGEX MATCHALL " random +[-0-9.]+ +[^ ]+ +[^ ]+ +[0-9.]+ +[0-9.]+ +1\\.0\n" one_per_call
       "${serial}")
list(LENGTH one_per_call rows)
if(NOT rows EQUAL 3)
  message(FATAL_ERROR "--batch 1 did not measure one candidate per call on 3 spaces:\n${serial}")
endif()
# The simulated clock (--compile-s and --bench-s as a cost model): a table at fixed simulated
# seconds, and its CSV.
execute_process(
  COMMAND "${CUTUNE}" bench-strategies "${SPACES}" --budget 30 --repeats 1 --strategies random
          --compile-s 7 --bench-s 0.2 --out "${OUT}/clock"
  OUTPUT_VARIABLE clock ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "bench-strategies --compile-s failed (${status}):\n${clock}\n${errors}")
endif()
foreach(expected "simulated clock: 16 compile slots" "compile 7 s, benchmark 0.2 s" "@15s"
                 "median-space s to 0.99")
  string(FIND "${clock}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing \"${expected}\" in the output:\n${clock}")
  endif()
endforeach()
file(READ "${OUT}/clock/strategy_seconds.csv" seconds)
string(FIND "${seconds}" "convolution_milo/A100,random,300," at)
if(at EQUAL -1)
  message(FATAL_ERROR "strategy_seconds.csv lacks the 300 s point:\n${seconds}")
endif()
# --transfer: every strategy runs again as <name>+transfer, whose tune takes the other spaces as
# priors (leave-one-device-out), 3 seeds each measured right after the default config, the first
# of each other space first (A100's, A4000's, then each one's second...). A space's seeds are its
# fastest config, then in turn the one of its 6 fastest (--transfer 6) that differs most from those
# before: A4000's third is its 6th fastest, 0.9797 of MI250X's optimum, the 7th evaluation; none
# before it is better, so the curve's 7th point is exactly that, whatever the seed.
execute_process(
  COMMAND "${CUTUNE}" bench-strategies "${SPACES}" --budget 9 --repeats 1 --strategies random
          --batch 1 --transfer 6 --out "${OUT}/transfer"
  OUTPUT_VARIABLE transfer ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "bench-strategies --transfer failed (${status}):\n${transfer}\n${errors}")
endif()
foreach(expected "convolution_milo/MI250X: priors from 2 other spaces" "random+transfer"
                 "to 2% (cens)" "regret")
  string(FIND "${transfer}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing \"${expected}\" in the output:\n${transfer}")
  endif()
endforeach()
file(READ "${OUT}/transfer/strategy_curves.csv" curves)
foreach(point "convolution_milo/MI250X,random+transfer,3,0.1514"
              "convolution_milo/MI250X,random+transfer,7,0.9797")
  string(FIND "${curves}" "${point}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the prior seeds from A4000 are not in MI250X's curve (${point}):\n${curves}")
  endif()
endforeach()
# A recording that lacks the space default (each knob's first value), as public ones do: the
# default is one failed evaluation the evaluator never sees, and the tables at simulated seconds
# still line up with the evaluations (the benchmark aborted here on such recordings).
file(WRITE "${OUT}/no-default/space.json" [[{
  "device_name": "Test GPU", "kernel_name": "k", "objective": "time",
  "tune_params_keys": ["bx", "by"], "tune_params": {"bx": [16, 32, 64], "by": [1, 2]},
  "cache": {
    "16,2": {"bx": 16, "by": 2, "time": 4.0}, "32,1": {"bx": 32, "by": 1, "time": 3.0},
    "32,2": {"bx": 32, "by": 2, "time": 2.0}, "64,1": {"bx": 64, "by": 1, "time": 1.5},
    "64,2": {"bx": 64, "by": 2, "time": 1.0}}}]])
execute_process(
  COMMAND "${CUTUNE}" bench-strategies "${OUT}/no-default/space.json" --budget 6 --repeats 2
          --strategies random,lfbo --out "${OUT}/no-default"
  OUTPUT_VARIABLE no_default ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "bench-strategies on a recording without its default failed (${status}):\n"
                      "${no_default}\n${errors}")
endif()
file(READ "${OUT}/no-default/strategy_seconds.csv" seconds)
string(FIND "${seconds}" "no-default/space,lfbo,300,1.000000" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the seconds table lacks lfbo's optimum at 300 s:\n${seconds}\n${no_default}")
endif()
