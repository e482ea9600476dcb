# The installable library: four shared libraries made from the internal static libraries' objects (each
# object in exactly one of them), the public headers (include/ethosu_sim), a CMake package (find_package(
# EthosuSim CONFIG): EthosuSim::isa, ::functional, ::npu, ::platform), a pkg-config file, the CLI, both driver
# shims and the Python package, and a Debian package (cpack). Included after every part of the tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
find_package(nlohmann_json 3 REQUIRED)

set(ETHOSU_SIM_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})  # 0.x: a minor release may break the ABI

# ethosu_public_library(NAME EXPORT_NAME PARTS static-libs... [LINK public-deps...] [PRIVATE private-deps...])
# PRIVATE names the external libraries the parts link privately (their objects need them).
function(ethosu_public_library name export_name)
  cmake_parse_arguments(A "" "" "PARTS;LINK;PRIVATE" ${ARGN})
  set(objects)
  foreach(part IN LISTS A_PARTS)
    list(APPEND objects $<TARGET_OBJECTS:${part}>)
  endforeach()
  add_library(${name} SHARED ${objects})
  set_target_properties(${name} PROPERTIES
    VERSION ${PROJECT_VERSION} SOVERSION ${ETHOSU_SIM_SOVERSION} EXPORT_NAME ${export_name} LINKER_LANGUAGE CXX
    INSTALL_RPATH "$ORIGIN" BUILD_WITH_INSTALL_RPATH ON)
  target_include_directories(${name} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${name} INTERFACE cxx_std_17)
  target_link_libraries(${name} PUBLIC ${A_LINK} PRIVATE ${A_PRIVATE} $<BUILD_INTERFACE:ethosu_sim_flags>)
  # Every object is in exactly one library: symbols of another part must come from that part's library.
  if(NOT ETHOSU_SIM_SANITIZERS AND NOT ETHOSU_SIM_FUZZERS)  # the sanitizer runtime comes with the program
    target_link_options(${name} PRIVATE -Wl,--no-undefined -Wl,-Bsymbolic-functions)
  endif()
  add_library(EthosuSim::${export_name} ALIAS ${name})
endfunction()

ethosu_public_library(ethosu-sim-isa isa PARTS ethosu_simcore ethosu_isa)
ethosu_public_library(ethosu-sim-functional functional
  PARTS ethosu_kernels ethosu_weights ethosu_npu_core ethosu_estimate
  LINK ethosu-sim-isa PRIVATE PkgConfig::XXHASH)
# libsystemc's main() calls sc_main: the library defines one, so programs with their own main() need none
# (a program's own sc_main takes precedence).
ethosu_public_library(ethosu-sim-npu npu
  PARTS ethosu_mem ethosu_npu ethosu_config ethosu_sc_main
  LINK ethosu-sim-functional PkgConfig::SYSTEMC)
ethosu_public_library(ethosu-sim-platform platform
  PARTS ethosu_platform ethosu_host_formats ethosu_firmware_ops ethosu_capture_writer ethosu_host
  LINK ethosu-sim-npu)

# Every public header compiles on its own, with nothing but the installed include folder and SystemC on the
# include path: it includes what it needs and nothing private. Built with the tree (a failure fails the
# build); skipped in sanitizer and fuzzer builds, which would only repeat it.
if(ETHOSU_SIM_TESTS AND NOT ETHOSU_SIM_SANITIZERS AND NOT ETHOSU_SIM_FUZZERS)
  file(GLOB public_headers RELATIVE ${PROJECT_SOURCE_DIR}/include/ethosu_sim CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/include/ethosu_sim/*.h)
  list(APPEND public_headers version.h registers.h)
  set(header_sources)
  foreach(h IN LISTS public_headers)
    string(REPLACE ".h" ".cpp" source ${PROJECT_BINARY_DIR}/public_headers/${h})
    file(CONFIGURE OUTPUT ${source} CONTENT "#include <ethosu_sim/${h}>\n")
    list(APPEND header_sources ${source})
  endforeach()
  add_library(public_headers_compile_alone OBJECT ${header_sources})
  target_include_directories(public_headers_compile_alone PRIVATE ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_BINARY_DIR}/include)
  target_link_libraries(public_headers_compile_alone PRIVATE PkgConfig::SYSTEMC ethosu_sim_flags)
endif()

# In-tree clients (CLI, Python module) link the shared libraries and also use internal headers.
add_library(ethosu_internal_headers INTERFACE)
target_include_directories(ethosu_internal_headers INTERFACE ${PROJECT_SOURCE_DIR})
target_link_libraries(ethosu_internal_headers INTERFACE nlohmann_json::nlohmann_json ethosu_sim_flags)

# Relocatable: every installed binary that links the libraries finds them relative to itself. The libraries sit
# side by side in the build tree too, so they take their install RUNPATH there: otherwise CMake pads the build tree's
# RUNPATH, for editing at install time, with ':', empty entries that the loader takes for the working directory, so
# that a process looked for each system library there first (13 failed opens per library) and would load one found
# there. The CLI links the internal static libraries and needs no RUNPATH.
if(TARGET _ethosu_sim)
  file(RELATIVE_PATH py_to_lib /${ETHOSU_SIM_PYTHON_INSTALL_DIR}/ethosu_sim /${CMAKE_INSTALL_LIBDIR})
  set_target_properties(_ethosu_sim PROPERTIES INSTALL_RPATH "$ORIGIN/${py_to_lib}")
endif()

install(TARGETS ethosu-sim-isa ethosu-sim-functional ethosu-sim-npu ethosu-sim-platform EXPORT EthosuSimTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET _ethosu_sim)
  # `cmake --install <build> --component python` installs the Python package with the libraries it loads.
  install(TARGETS ethosu-sim-isa ethosu-sim-functional ethosu-sim-npu ethosu-sim-platform
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP COMPONENT python EXCLUDE_FROM_ALL)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ethosu_sim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/ethosu_sim/version.h ${PROJECT_BINARY_DIR}/include/ethosu_sim/registers.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ethosu_sim)
# The driver shims and the board recorder are preloaded, not linked: they go beside the libraries, in a folder
# of their own.
if(ETHOSU_SIM_SHIMS)
  install(TARGETS ethosu-sim-accel ethosu-sim-nxp ethosu-record LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/ethosu-sim)
endif()

set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/EthosuSim)
install(EXPORT EthosuSimTargets NAMESPACE EthosuSim:: DESTINATION ${cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/EthosuSimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/EthosuSimConfig.cmake INSTALL_DESTINATION ${cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/EthosuSimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/EthosuSimConfig.cmake ${PROJECT_BINARY_DIR}/EthosuSimConfigVersion.cmake
        DESTINATION ${cmake_dir})

# pkg-config: the prefix is found from the file's own place, so an unpacked tree works anywhere.
file(RELATIVE_PATH pc_to_prefix /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ethosu-sim.pc.in ${PROJECT_BINARY_DIR}/ethosu-sim.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ethosu-sim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples USE_SOURCE_PERMISSIONS)

# The Debian package: `cpack` in the build folder makes ethosu-sim_<version>_<arch>.deb. Its dependencies are
# Debian's runtime packages: dpkg-shlibdeps finds the libraries' (libsystemc, libstdc++...), the Python
# package adds its interpreter and numpy.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ethosu-sim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Cycle-level simulator of the Arm Ethos-U65 NPU (SystemC/TLM-2.0 library, CLI, driver shims, Python)")
set(CPACK_PACKAGE_DESCRIPTION
  "ethosu-sim simulates the Arm Ethos-U65 NPU of NXP's i.MX 93: bit-exact outputs and block-level timing of
command streams, as a C++ library whose NPU is a SystemC/TLM-2.0 module for virtual platforms, the ethosu-sim
command line, preloadable shims for the Linux accel/ethosu and NXP /dev/ethosu0 drivers, and a Python module.")
set(CPACK_PACKAGE_CONTACT "ethosu-sim developers <ethosu-sim@localhost>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)  # Apache License 2.0 (also installed into the doc folder)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${ETHOSU_SIM_PYTHON_DEB_DEPENDS}")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libsystemc-dev, pkg-config, cmake, g++")
set(CPACK_STRIP_FILES ON)
include(CPack)
