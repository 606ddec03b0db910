# `cmake --install` and `cpack -G DEB`: the ferry binary (src/CMakeLists.txt), the Python package
# that `ferry report` and `ferry compare` run (beside it, under
# share/ferry/python, where the binary looks first), and the docs' pages.
include(GNUInstallDirs)
set(FERRY_PYTHON_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/ferry/python)
file(RELATIVE_PATH FERRY_PYTHON_FROM_BINDIR
     ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR} ${CMAKE_INSTALL_PREFIX}/${FERRY_PYTHON_INSTALL_DIR})

install(DIRECTORY python/ferry DESTINATION ${FERRY_PYTHON_INSTALL_DIR} PATTERN __pycache__ EXCLUDE)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The pages, not docs/results (the recorded runs the docs cite, which stay in the repository).
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md" PATTERN results EXCLUDE)

set(CPACK_PACKAGE_NAME ferry)
set(CPACK_PACKAGE_VENDOR "ferry")
set(CPACK_PACKAGE_CONTACT "ferry maintainers <maintainers@ferry.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "measure, model and speed up data movement between hosts and GPUs")
set(CPACK_PACKAGE_INSTALL_DIRECTORY ferry)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The shared libraries ferry links (fmt, OpenMPI, libstdc++) are found by
# dpkg-shlibdeps; report and compare need Python with matplotlib. NCCL and the
# CUDA driver are opened at run time where there is a GPU, so they are suggested.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= 3.9), python3-matplotlib")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libnccl2, openmpi-bin")
include(CPack)
