/* mc_mpi.h: the MPI job a campaign runs in (cli_mc_mpi.c). MPI is started only when the process
 * was launched by mpirun (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_RANK is set), so the
 * same binary runs alone without it; built without MPI, every process is rank 0 of 1. */
#ifndef HINGE_MC_MPI_H
#define HINGE_MC_MPI_H

void hg_mc_mpi_init(int *argc, char ***argv);
void hg_mc_mpi_finalize(void);
int hg_mc_mpi_rank(void);
int hg_mc_mpi_size(void);
/* rank 0's status on every rank */
int hg_mc_mpi_bcast_status(int status);
/* the largest status of all ranks on every rank (also a barrier) */
int hg_mc_mpi_reduce_status(int status);

#endif
