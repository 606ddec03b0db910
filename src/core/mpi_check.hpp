#pragma once
// Every MPI call in ferry goes through FERRY_MPI: a failure becomes a
// RuntimeFailure naming the call, MPI's error text and file:line (the CLI then
// names the rank and aborts every rank). Included only where MPI is built in.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1  // the C API only: Open MPI's deprecated C++ bindings stay out
#endif
#include <mpi.h>

namespace ferry {

[[noreturn]] void throw_mpi_error(int error, const char* call, const char* file, int line);

inline void check_mpi(int error, const char* call, const char* file, int line) {
  if (error != MPI_SUCCESS) throw_mpi_error(error, call, file, line);
}

}  // namespace ferry

#define FERRY_MPI(call) ::ferry::check_mpi((call), #call, __FILE__, __LINE__)
