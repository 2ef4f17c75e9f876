# Installing HHLO-C++ and using it from another CMake project (or pkg-config):
#   cmake --install build --prefix P
# gives P/include/hhlo/, P/lib/libhhlo_<layer>.a (or P/lib/libhhlo.so with HHLO_BUILD_SHARED=ON),
# P/bin/hhlo, P/lib/cmake/hhlo/hhloConfig.cmake (+ version file; targets hhlo::hhlo and one per
# layer: hhlo::core, hhlo::ir, hhlo::runtime, ...), P/lib/pkgconfig/hhlo.pc, and the plugins and
# data fetched at set-up in P/share/hhlo/{plugins,data}/, which the runtime finds relative to the
# installed library or program (hhlo/core/paths.h). Nothing installed names the build tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

option(HHLO_BUILD_SHARED "Also build and install one shared libhhlo.so (hhlo::hhlo) instead of the static layers" OFF)

get_property(hhlo_layers GLOBAL PROPERTY HHLO_LAYERS)

# The build tree mirrors an installed share/hhlo: links to the set-up folder, so a program built
# here finds its plugin by the same rule as an installed one (walking up from its own folder).
file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/share/hhlo")
foreach(pair "pjrt;plugins" "data;data")
  list(GET pair 0 from)
  list(GET pair 1 to)
  if(NOT EXISTS "${CMAKE_BINARY_DIR}/share/hhlo/${to}")
    file(CREATE_LINK "${HHLO_THIRD_PARTY}/${from}" "${CMAKE_BINARY_DIR}/share/hhlo/${to}" SYMBOLIC)
  endif()
endforeach()
# The last place looked: the share folder of the prefix configured here (a plain `cmake --install`).
set_property(SOURCE "${CMAKE_SOURCE_DIR}/src/core/paths.cc" APPEND PROPERTY COMPILE_DEFINITIONS
             HHLO_CONFIGURED_SHARE_DIR="${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/hhlo")

set_target_properties(hhlo PROPERTIES EXPORT_NAME hhlo)
install(DIRECTORY "${CMAKE_SOURCE_DIR}/include/hhlo" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
if(HHLO_BUILD_SHARED)
  # One shared library holding every layer (whole archives: nothing dropped for being unused).
  file(WRITE "${CMAKE_BINARY_DIR}/cmake/hhlo_shared.cc" "// libhhlo.so: every layer, linked whole.\n")
  add_library(hhlo_shared SHARED "${CMAKE_BINARY_DIR}/cmake/hhlo_shared.cc")
  set_target_properties(hhlo_shared PROPERTIES OUTPUT_NAME hhlo EXPORT_NAME hhlo
                        VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  # The archives by path between --whole-archive flags ($<LINK_LIBRARY:WHOLE_ARCHIVE> refuses
  # layers that also come in through each other), then what the layers themselves link.
  set(archives "")
  foreach(layer ${hhlo_layers})
    get_target_property(kind ${layer} TYPE)
    if(kind STREQUAL "STATIC_LIBRARY")
      list(APPEND archives "$<TARGET_FILE:${layer}>")
      add_dependencies(hhlo_shared ${layer})
    endif()
  endforeach()
  target_link_libraries(hhlo_shared PRIVATE "-Wl,--whole-archive" ${archives} "-Wl,--no-whole-archive"
                        fmt::fmt ZLIB::ZLIB OpenSSL::Crypto ${HHLO_LAPACK_LIBRARIES} DNNL::dnnl
                        OpenMP::OpenMP_CXX protobuf::libprotobuf PkgConfig::NGHTTP2 prometheus-cpp::core
                        ${CMAKE_DL_LIBS} Threads::Threads)
  target_include_directories(hhlo_shared INTERFACE "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  install(TARGETS hhlo_shared EXPORT hhloTargets LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  set(HHLO_PC_LIBS "-lhhlo")
else()
  install(TARGETS hhlo ${hhlo_layers} EXPORT hhloTargets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
          INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
  # Link order for pkg-config: each layer before the layers it depends on (reverse creation order).
  set(HHLO_PC_LIBS "")
  foreach(layer ${hhlo_layers})
    get_target_property(kind ${layer} TYPE)
    if(kind STREQUAL "STATIC_LIBRARY")
      set(HHLO_PC_LIBS "-l${layer} ${HHLO_PC_LIBS}")
    endif()
  endforeach()
endif()
install(TARGETS hhlo_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(EXPORT hhloTargets NAMESPACE hhlo:: DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/hhlo")

configure_package_config_file("${CMAKE_SOURCE_DIR}/cmake/hhloConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/cmake/hhloConfig.cmake"
  INSTALL_DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/hhlo" PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/cmake/hhloConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/cmake/hhloConfig.cmake"
              "${CMAKE_BINARY_DIR}/cmake/hhloConfigVersion.cmake"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/hhlo")
# hhlo.pc names its prefix relative to itself (${pcfiledir}), so `--prefix` at install time holds.
file(RELATIVE_PATH HHLO_PC_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
configure_file("${CMAKE_SOURCE_DIR}/cmake/hhlo.pc.in" "${CMAKE_BINARY_DIR}/cmake/hhlo.pc" @ONLY)
install(FILES "${CMAKE_BINARY_DIR}/cmake/hhlo.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# The set-up's plugins and data. The CUDA plugin with its NVIDIA wheels (scripts/setup.sh --cuda:
# 4.9 GB) is its own component, `cuda`: a plain `cmake --install` installs it when it was set up
# (OPTIONAL: nothing when not); `--component Unspecified` installs everything but it (the tests).
install(DIRECTORY "${HHLO_THIRD_PARTY}/pjrt/" DESTINATION "${CMAKE_INSTALL_DATADIR}/hhlo/plugins"
        USE_SOURCE_PERMISSIONS PATTERN "cuda" EXCLUDE)
install(DIRECTORY "${HHLO_THIRD_PARTY}/pjrt/cuda" DESTINATION "${CMAKE_INSTALL_DATADIR}/hhlo/plugins"
        USE_SOURCE_PERMISSIONS OPTIONAL COMPONENT cuda PATTERN ".hhlo-stamp" EXCLUDE)
install(FILES "${HHLO_THIRD_PARTY}/data/digits.csv.gz" DESTINATION "${CMAKE_INSTALL_DATADIR}/hhlo/data")

# The install test (label `install`): install into a temporary prefix, move it, then use it from
# the CLI, from examples/consumer (find_package) and through pkg-config.
add_test(NAME install.consumer
         COMMAND "${CMAKE_SOURCE_DIR}/tests/install/install_test.sh" "${CMAKE_BINARY_DIR}"
                 "${CMAKE_SOURCE_DIR}" "${HHLO_THIRD_PARTY}")
set_tests_properties(install.consumer PROPERTIES LABELS install TIMEOUT 900)
# The shared-library variant (HHLO_BUILD_SHARED=ON) in its own build tree beside this one
# (build-shared: configured and built by the test, incremental after the first run), installed,
# and examples/consumer linked against libhhlo.so and run. RUN_SERIAL: it builds with -j2.
add_test(NAME install.shared
         COMMAND "${CMAKE_SOURCE_DIR}/tests/install/shared_test.sh" "${CMAKE_BINARY_DIR}"
                 "${CMAKE_SOURCE_DIR}" "${HHLO_THIRD_PARTY}" "${CMAKE_BUILD_TYPE}")
set_tests_properties(install.shared PROPERTIES LABELS install TIMEOUT 1800 RUN_SERIAL ON)
