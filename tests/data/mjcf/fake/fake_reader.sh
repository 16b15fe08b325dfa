#!/bin/bash
# fake_reader.sh: a stand-in for hinge-mjcf-reader that misbehaves as its MJCF file says (its first
# word), for test_mjcf_frame: hinge's side (sim/readers/mjcf_proc.c) must turn each of these into
# an error of the file. Arguments as the real reader's: MEMORY_BYTES CPU_SECONDS FILE.
# An ERROR frame (mjcf_frame.h, little-endian): "hgmjcf\0\0", version 1, kind 2, 16 counts (the
# first the message's length), the message, "hgmjcfZ\0".
u32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 24 & 255)))"; }
good=$(dirname "$0")/../../../fuzz/seeds/mjcf_frame/chain.frame  # a real answer after 1 byte
case $(awk '{print $1; exit}' "$3") in
  sleep) exec sleep 600 ;;                       # never answers
  linger) exec 1>&- ; exec sleep 600 ;;          # closes its output, never ends
  segv) kill -SEGV $$ ;;                         # crashes
  abort) kill -ABRT $$ ;;                        # aborts (glibc's "free(): invalid pointer")
  garbage) exec cat /dev/urandom ;;              # endless bytes, no frame
  silent) exit 0 ;;                              # no answer at all
  short) tail -c +2 "$good" | head -c 300 ;;     # cut in the middle of the bodies
  late) tail -c +2 "$good"; exec 1>&-; kill -SEGV $$ ;; # a whole answer, then a crash
  error) msg='XML Error: Schema violation: unrecognized element
Element '"'"'bodyy'"'"', line 3'
         printf 'hgmjcf\0\0'; u32 1; u32 2; u32 ${#msg}; for k in $(seq 15); do u32 0; done
         printf '%s' "$msg"; printf 'hgmjcfZ\0'; exit 1 ;;
  good) tail -c +2 "$good" ;;
esac
