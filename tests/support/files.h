/* files.h: temporary folders and whole files, for tests that run simulations with outputs. */
#ifndef HINGE_TEST_FILES_H
#define HINGE_TEST_FILES_H

#include <stddef.h>

/* a fresh folder /tmp/hinge_test_<tag>_XXXXXX in path; 0, or -1 when it cannot be made */
int hg_test_temp_dir(const char *tag, char *path, size_t len);
/* removes a folder and the files in it */
void hg_test_remove_dir(const char *path);
/* a file's contents (malloc'd, NUL-terminated) and length, or NULL */
char *hg_test_read_file(const char *path, size_t *len);

#endif
