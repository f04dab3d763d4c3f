# `cmake --install`: headers, the libraries a program links, the `cutune` tool and its workers,
# and the files that let other projects find them: cutuneConfig.cmake (+ version) exporting
# cutune::cutune (everything), cutune::runtime and cutune::lookup (the lookup-only runtime), and
# pkg-config's cutune.pc and cutune-lookup.pc. Included last from the top CMakeLists.txt; refers to
# targets by name only, so folders keep their own CMakeLists.txt. docs/package.md explains use.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# What a program may link: the exported closure of these (every cutune_* library they link,
# privately too, since static libraries carry their dependencies to the final link).
set(cutune_package_roots cutune_runtime cutune_families cutune_replay cutune_kt cutune_lookup)
if(CUTUNE_CUDA)
  list(APPEND cutune_package_roots cutune_family_spec_cuda_runtime cutune_family_gemm_runtime
                                   cutune_family_gemm_fp8_runtime)
endif()
# The tool and the helper programs it starts (the CPU backend finds its worker beside the program).
set(cutune_package_programs cutune cutune-cpu-worker)
if(CUTUNE_CUDA)
  list(APPEND cutune_package_programs cutune-cuda-worker cutune-nvrtc)
endif()

# Depth-first over link dependencies: appends `target` after everything it links, so that the
# reversed list is a valid static link order (dependents first).
function(cutune_visit target)
  get_property(seen GLOBAL PROPERTY cutune_visit_seen)
  if(target IN_LIST seen)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY cutune_visit_seen ${target})
  get_target_property(links ${target} LINK_LIBRARIES)
  get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
  foreach(link IN LISTS links interface)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
    if(link MATCHES "^cutune_" AND TARGET ${link})
      cutune_visit(${link})
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY cutune_visit_order ${target})
endfunction()
# Every cutune library the roots link, each after the ones it links.
function(cutune_link_closure out)
  set_property(GLOBAL PROPERTY cutune_visit_seen "")
  set_property(GLOBAL PROPERTY cutune_visit_order "")
  foreach(root IN LISTS ARGN)
    cutune_visit(${root})
  endforeach()
  get_property(order GLOBAL PROPERTY cutune_visit_order)
  set(${out} ${order} PARENT_SCOPE)
endfunction()
cutune_link_closure(cutune_package_libraries ${cutune_package_roots})

# Installed, a library's headers are include/ (cutune/*.hpp); the build tree keeps its own folders.
foreach(library IN LISTS cutune_package_libraries)
  string(REGEX REPLACE "^cutune_" "" export_name ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${export_name})
  get_target_property(dirs ${library} INTERFACE_INCLUDE_DIRECTORIES)
  if(dirs)
    set(wrapped)
    foreach(dir IN LISTS dirs)
      list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
    endforeach()
    list(APPEND wrapped "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
    set_target_properties(${library} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${wrapped}")
  endif()
endforeach()

add_library(cutune_package INTERFACE)
target_link_libraries(cutune_package INTERFACE cutune_runtime cutune_families cutune_replay
                                               cutune_kt cutune_lookup)
set_target_properties(cutune_package PROPERTIES EXPORT_NAME cutune)

install(TARGETS ${cutune_package_libraries} cutune_package EXPORT cutuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ${cutune_package_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/cutune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(cutune_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cutune)
install(EXPORT cutuneTargets NAMESPACE cutune:: DESTINATION ${cutune_cmake_dir})
configure_package_config_file(cmake/cutuneConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/cutuneConfig.cmake
                              INSTALL_DESTINATION ${cutune_cmake_dir})
# 0.x: a new minor version may break the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/cutuneConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/cutuneConfig.cmake
              ${PROJECT_BINARY_DIR}/package/cutuneConfigVersion.cmake
        DESTINATION ${cutune_cmake_dir})

# pkg-config: the static libraries of cutune::cutune in link order (dependents first), then
# what they need from the system. The CUDA runtimes are left out: they need the driver.
cutune_link_closure(cutune_pc_libraries cutune_package)
list(REVERSE cutune_pc_libraries)
list(REMOVE_ITEM cutune_pc_libraries cutune_package)
set(cutune_pc_libs "")
foreach(library IN LISTS cutune_pc_libraries)
  string(APPEND cutune_pc_libs " -l${library}")
endforeach()
set(CMAKE_DL_LIBS_FLAG "")
foreach(library IN LISTS CMAKE_DL_LIBS)
  string(APPEND CMAKE_DL_LIBS_FLAG " -l${library}")
endforeach()
get_filename_component(cutune_xgboost_dir "${XGBOOST_LIBRARY}" DIRECTORY)
# Relocatable: the prefix is found from the .pc file's own folder, so that `cmake --install
# --prefix P` works whatever CMAKE_INSTALL_PREFIX was at configure time.
file(RELATIVE_PATH cutune_pc_to_prefix "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" cutune_pc_to_prefix "${cutune_pc_to_prefix}")
foreach(file cutune cutune-lookup)
  configure_file(cmake/${file}.pc.in ${PROJECT_BINARY_DIR}/package/${file}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/package/${file}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
