/* files.h: temporary folders and whole files, for tests that run simulations with outputs. */
#ifndef HINGE_TEST_FILES_H
#define HINGE_TEST_FILES_H

#include <stddef.h>

/* a fresh folder /tmp/hinge_test_<tag>_XXXXXX in path; 0, or -1 when it cannot be made */
int hg_test_temp_dir(const char *tag, char *path, size_t len);
/* removes a folder and everything in it */
void hg_test_remove_dir(const char *path);
/* a file's contents (malloc'd, NUL-terminated) and length, or NULL */
char *hg_test_read_file(const char *path, size_t *len);

/* A resumed run (dir_b) against the run that wrote the checkpoint (dir_a): the rows of dir_b's
 * trajectory.csv (after its header) must be, byte for byte, the last rows of dir_a's. Returns
 * their length in bytes, or -1 when a file is missing, empty or the bytes differ. */
long hg_test_resumed_tail(const char *dir_a, const char *dir_b);

#endif
