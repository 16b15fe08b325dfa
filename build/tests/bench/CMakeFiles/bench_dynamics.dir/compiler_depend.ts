# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for bench_dynamics.
