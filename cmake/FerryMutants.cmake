# Source mutants, in the mutation build only (FERRY_MUTATION=ON: the ASan+UBSan
# tree, never installed). Every file that scripts/mutants/catalogue.toml names
# is compiled from a copy generated into this build tree
# (scripts/mutants/schemata.py), holding each of its entries as
# `(::ferry::mutant("ID") ? (replacement) : (original))`; FERRY_MUTANT=ID turns
# one on when the tests run (scripts/source-mutation.sh). One build then holds
# every mutant: compiling a mutant's unity batch again and relinking the tests
# took 41 s on a 2-core machine, where running its tests takes a second or two
# (docs/reliability.md).
#
# ferry_mutated_sources(OUT SOURCES...): SOURCES (relative to src/), each that
# the catalogue names replaced by its generated copy. FERRY_MUTANT_HEADERS: the
# copies of headers, whose folder ferry_core puts before src/ on every target's
# include path.
set(FERRY_MUTANT_CATALOGUE ${PROJECT_SOURCE_DIR}/scripts/mutants/catalogue.toml)
set(FERRY_MUTANT_GENERATOR ${PROJECT_SOURCE_DIR}/scripts/mutants/schemata.py)
set(FERRY_MUTANTS_DIR ${CMAKE_BINARY_DIR}/mutants)
set(FERRY_MUTANT_FILES "")
set(FERRY_MUTANT_HEADERS "")

if(FERRY_MUTATION)
  find_package(Python3 3.11 COMPONENTS Interpreter REQUIRED)  # tomllib
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${FERRY_MUTANT_CATALOGUE} ${FERRY_MUTANT_GENERATOR})
  execute_process(COMMAND ${Python3_EXECUTABLE} ${FERRY_MUTANT_GENERATOR} files ${FERRY_MUTANT_CATALOGUE} ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE files RESULT_VARIABLE code ERROR_VARIABLE error)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "ferry: scripts/mutants/catalogue.toml: ${error}")
  endif()
  string(REPLACE "\n" ";" FERRY_MUTANT_FILES "${files}")
  foreach(file ${FERRY_MUTANT_FILES})
    if(NOT file MATCHES "^src/")
      message(FATAL_ERROR "ferry: scripts/mutants/catalogue.toml names ${file}: mutants live under src/")
    endif()
    if(file MATCHES "\\.(hpp|h)$")
      list(APPEND FERRY_MUTANT_HEADERS ${FERRY_MUTANTS_DIR}/${file})
    endif()
  endforeach()
  # A quoted #include searches -iquote folders before every -I folder, so each target (the tests too)
  # reads a mutated header's copy, whatever order the layers' include roots come in.
  add_compile_options("SHELL:-iquote ${FERRY_MUTANTS_DIR}/src")
  message(STATUS "ferry: source mutants in ${FERRY_MUTANTS_DIR} (${FERRY_MUTANT_FILES})")
endif()

# In src/: the rules that generate the copies (a generated source has its rule in the folder of the
# targets that compile it), and ferry_mutant_headers, on which ferry_core depends, so that every
# header's copy exists before anything that includes it compiles.
function(ferry_mutant_rules)
  foreach(file ${FERRY_MUTANT_FILES})
    set(copy ${FERRY_MUTANTS_DIR}/${file})
    add_custom_command(
      OUTPUT ${copy}
      COMMAND ${Python3_EXECUTABLE} ${FERRY_MUTANT_GENERATOR} generate ${FERRY_MUTANT_CATALOGUE} ${PROJECT_SOURCE_DIR}
              ${file} ${copy}
      DEPENDS ${PROJECT_SOURCE_DIR}/${file} ${FERRY_MUTANT_CATALOGUE} ${FERRY_MUTANT_GENERATOR}
      COMMENT "Generating the mutation build's copy of ${file}"
      VERBATIM)
  endforeach()
  add_custom_target(ferry_mutant_headers DEPENDS ${FERRY_MUTANT_HEADERS})
endfunction()

function(ferry_mutated_sources out)
  set(sources)
  foreach(source ${ARGN})
    if("src/${source}" IN_LIST FERRY_MUTANT_FILES)
      list(APPEND sources ${FERRY_MUTANTS_DIR}/src/${source})
    else()
      list(APPEND sources ${source})
    endif()
  endforeach()
  set(${out} ${sources} PARENT_SCOPE)
endfunction()
