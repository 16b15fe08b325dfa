/* cli_mc_mpi.c: the MPI job of a campaign (mc_mpi.h). */
#include <stdlib.h>

#include "mc_mpi.h"

#ifdef HINGE_HAVE_MPI
#include <mpi.h>

static int started, rank, size = 1;

/* launched by mpirun (Open MPI, or a PMI/PMIx launcher such as Slurm's srun) */
static int under_mpirun(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

void hg_mc_mpi_init(int *argc, char ***argv) {
  if (started || !under_mpirun()) return;
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  started = 1;
}

void hg_mc_mpi_finalize(void) {
  if (started) MPI_Finalize();
  started = 0;
}

int hg_mc_mpi_rank(void) { return rank; }
int hg_mc_mpi_size(void) { return size; }

int hg_mc_mpi_bcast_status(int status) {
  if (started) MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

int hg_mc_mpi_reduce_status(int status) {
  int all = status;
  if (started) MPI_Allreduce(&status, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

#else

#include <stdio.h>
#include <string.h>

/* built without MPI but started by mpirun on several ranks: every rank would make every run and
 * write the same files, so stop */
void hg_mc_mpi_init(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *n = getenv("OMPI_COMM_WORLD_SIZE");
  if (n && strcmp(n, "1")) {
    fprintf(stderr, "hinge mc: started by mpirun on %s ranks, but this hinge was built without "
                    "MPI (install libopenmpi-dev and rebuild)\n", n);
    exit(2);
  }
}
void hg_mc_mpi_finalize(void) {}
int hg_mc_mpi_rank(void) { return 0; }
int hg_mc_mpi_size(void) { return 1; }
int hg_mc_mpi_bcast_status(int status) { return status; }
int hg_mc_mpi_reduce_status(int status) { return status; }

#endif
