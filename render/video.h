/* video.h: MP4 videos through ffmpeg, for `hinge render` (its PNG frames encoded at the end) and
 * the viewer's --video (every frame drawn, piped to ffmpeg as it comes). ffmpeg runs without a
 * shell (any file name is safe), in a process group of its own (a ctrl+C in the terminal stops
 * the viewer, which then ends the video; ffmpeg itself is not interrupted), and writes H.264 in
 * yuv420p, its width and height cut to even numbers. */
#ifndef HINGE_RENDER_VIDEO_H
#define HINGE_RENDER_VIDEO_H

#include <stddef.h>
#include <sys/types.h>

/* 1 when ffmpeg is on the PATH */
int hg_video_available(void);

/* Starts "ffmpeg -y -loglevel error INPUT... -vf scale=(even) -pix_fmt yuv420p -c:v libx264
 * OUTPUT", input a NULL-terminated list of ffmpeg's input arguments, its standard input
 * stdin_fd (-1: this process's). 0 with *pid, or -1. */
int hg_video_spawn(char *const input[], const char *output, int stdin_fd, pid_t *pid);
/* waits for the ffmpeg of hg_video_spawn; 0 when it exited with status 0, else -1 */
int hg_video_wait(pid_t pid);

/* a video being written frame by frame */
typedef struct hg_video hg_video;

/* Starts a video of w x h frames at fps frames per second into path. NULL with err when
 * ffmpeg is not on the PATH or cannot be started. */
hg_video *hg_video_open(const char *path, int w, int h, double fps, char *err, size_t errlen);
/* Adds a frame of fw x fh RGBA pixels, rows from the top: its overlap with the video's
 * w x h, from the top-left corner (the rest black, when a window was resized). 0, or -1 when
 * ffmpeg no longer reads (it failed; hg_video_close says so). */
int hg_video_frame(hg_video *v, const unsigned char *rgba, int fw, int fh);
/* the frames added */
long hg_video_frames(const hg_video *v);
/* Ends the input, waits for ffmpeg to finish the file and frees v. 0, or -1 with err when the
 * video is not complete. */
int hg_video_close(hg_video *v, char *err, size_t errlen);

#endif
