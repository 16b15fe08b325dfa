/* error.h: how the dynamics core and everything built on it says what went wrong. A function
 * that can fail takes an hg_error * (NULL: the caller does not want the message), writes one line
 * into it and returns non-zero; readers put "file:line: " in front. */
#ifndef HINGE_ERROR_H
#define HINGE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* a message for whoever made the input: "what went wrong" (file:line context added by readers) */
typedef struct hg_error {
  char msg[512];
} hg_error;

/* err->msg = the printf-style message, cut to fit (nothing when err is NULL) */
void hg_error_set(hg_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the same, returning -1: `return hg_error_fail(err, "what", ...);` */
int hg_error_fail(hg_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif
