#!/bin/bash
# fake_reader.sh: a stand-in for hinge-mesh-reader that misbehaves as its mesh file says (its first
# word), for test_mesh_isolated: the parent side (sim/readers/mesh_assimp.c) must turn each of
# these into an error of the mesh. Arguments as the real reader's: MEMORY_BYTES CPU_SECONDS FILE.
# A frame (mesh_frame.h, little-endian): "hgmesh1\0", kind, n1, n2, 0 (uint32), body, "hgmeshZ\0".
u32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 24 & 255)))"; }
start() { printf 'hgmesh1\0'; u32 "$1"; u32 "$2"; u32 "$3"; u32 0; }
# three vertices as doubles: (0,0,0) (1,0,0) (0,1,0)
verts() { printf '\0\0\0\0\0\0\0\0%.0s' 1 2 3; printf '\0\0\0\0\0\0\xf0\x3f'; printf '\0\0\0\0\0\0\0\0%.0s' 1 2 3; printf '\0\0\0\0\0\0\xf0\x3f'; printf '\0\0\0\0\0\0\0\0'; }
case $(awk '{print $1; exit}' "$3") in
  sleep) exec sleep 600 ;;                     # never answers
  segv) kill -SEGV $$ ;;                       # crashes
  garbage) exec cat /dev/urandom ;;            # endless bytes, no frame
  flood) start 1 100000000 100000000; exec cat /dev/zero ;; # counts past any output cap
  index) start 1 3 1; verts; u32 0; u32 1; u32 7; printf 'hgmeshZ\0' ;; # vertex 8 of 3
  nan) start 1 3 1; verts | head -c 16; printf '\0\0\0\0\0\0\xf8\x7f'; verts | tail -c 48; u32 0; u32 1; u32 2; printf 'hgmeshZ\0' ;;
  short) start 1 3 1; verts | head -c 30 ;;     # cut in the middle of the vertices
  trailing) start 1 3 1; verts; u32 0; u32 1; u32 2; printf 'hgmeshZ\0more' ;; # bytes after the end
  error) start 2 5 0; printf 'oops!'; printf 'hgmeshZ\0'; exit 1 ;; # the reader's own error
  good) start 1 3 1; verts; u32 0; u32 1; u32 2; printf 'hgmeshZ\0' ;;
esac
