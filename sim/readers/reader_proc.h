/* reader_proc.h: the reader programs that parse untrusted files in a process of their own
 * (hinge-mesh-reader for meshes through assimp, hinge-mjcf-reader for MJCF through MuJoCo):
 * where such a program is, and starting it with its standard output on a pipe. Each caller
 * bounds the reader's time and answer, decodes the answer and reaps the process itself
 * (mesh_assimp.c, mjcf_proc.c). Programs are started with posix_spawn: no fork of this
 * process's memory, safe with threads (campaigns load scenes on worker threads) and under MPI. */
#ifndef HINGE_READER_PROC_H
#define HINGE_READER_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* The path of the reader program `name` into buf (len bytes): $env_var when set, else
 * libexec/hinge/NAME in the folder of the file holding this code (the hinge program,
 * libhinge-sim.so or the Python module) or in one of the four folders above it (PREFIX/bin,
 * PREFIX/lib/ARCH, PREFIX/lib/python3/dist-packages/hinge, the build tree's folders of tests and
 * fuzzers), then the same from the running program (/proc/self/exe): no path of the build
 * machine is compiled in. 0, or -1 when none is executable (buf then holds
 * libexec/hinge/NAME, for the message). */
int hg_reader_locate(const char *name, const char *env_var, char *buf, size_t len);

/* Starts program (argv[0] = program, NULL-terminated) with its standard output on a new pipe
 * whose read end (close-on-exec) goes to *out_fd, and its standard input and error output on
 * /dev/null. *pid = the process. Returns 0, or an errno value (nothing left open or running). */
int hg_reader_start(const char *program, char *const argv[], int *out_fd, pid_t *pid);

/* CLOCK_MONOTONIC seconds: the readers' deadlines */
double hg_reader_now(void);

#endif
