# cmake -DBUILD_DIR=.. -DWORK_DIR=.. -DCONSUMER_DIR=.. -DSPEC=.. -DCXX=.. -P check_install.cmake
# Installs the build to a fresh prefix, then, as a user would: builds the consumer project with
# find_package(cutune), and the same program with pkg-config, and runs both.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    string(JOIN " " command ${ARGN})
    message(FATAL_ERROR "failed (${status}): ${command}\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
function(expect text)
  if(NOT last_output MATCHES "${text}")
    message(FATAL_ERROR "expected '${text}' in:\n${last_output}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(installed include/cutune/lookup.hpp include/cutune/runtime.hpp bin/cutune
                  bin/cutune-cpu-worker lib/cmake/cutune/cutuneConfig.cmake
                  lib/cmake/cutune/cutuneConfigVersion.cmake lib/pkgconfig/cutune.pc
                  lib/pkgconfig/cutune-lookup.pc)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "not installed: ${installed}")
  endif()
endforeach()
run(${prefix}/bin/cutune --version)
expect("cutune 0\\.")

# find_package(cutune REQUIRED), from a project outside the source tree.
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
file(MAKE_DIRECTORY ${WORK_DIR}/run-cmake)
run(${WORK_DIR}/consumer/consumer ${SPEC} ${WORK_DIR}/run-cmake)
expect("cpu_matmul knobs=6 BM=16")

# pkg-config: the same program, one compiler command.
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run(pkg-config --cflags --libs cutune)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} -O1 -o ${WORK_DIR}/consumer-pc ${CONSUMER_DIR}/main.cpp ${flags})
file(MAKE_DIRECTORY ${WORK_DIR}/run-pc)
run(${WORK_DIR}/consumer-pc ${SPEC} ${WORK_DIR}/run-pc)
expect("cpu_matmul knobs=6 BM=16")

# The lookup runtime alone, through pkg-config, reading a file the installed tool exported.
run(${prefix}/bin/cutune export --db ${WORK_DIR}/run-pc/results.db --json ${WORK_DIR}/winners.json)
run(pkg-config --cflags --libs cutune-lookup)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} -O1 -o ${WORK_DIR}/lookup-pc ${CONSUMER_DIR}/lookup_main.cpp ${flags})
run(${WORK_DIR}/lookup-pc ${WORK_DIR}/winners.json cpu_matmul m=64,n=64,k=64)
expect("\"BM\":16")
run(${WORK_DIR}/consumer/lookup_consumer ${WORK_DIR}/winners.json cpu_matmul m=80,n=64,k=64)
expect("\"BM\":16")
file(REMOVE_RECURSE ${WORK_DIR})
