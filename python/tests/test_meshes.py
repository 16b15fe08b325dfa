"""Meshes through assimp from Python: the module starts the same mesh reader process as the
hinge program (sim/readers/mesh_assimp.c), found from the module's own folder, so a Collada
mesh loads and a hostile one is an error of the scene, not a crash of the interpreter."""
import pytest

import hinge
from conftest import source


def scene(tmp_path, mesh):
    path = tmp_path / "mesh.yaml"
    path.write_text("bodies:\n  - name: block\n    joint: {type: free}\n"
                    "    inertia: {mesh: %s, density: 1000}\ngravity: [0, 0, 0]\n" % mesh)
    return str(path)


def test_collada_inertia(tmp_path):
    # tetra.dae: the tetrahedron (0,0,0) (1,0,0) (0,2,0) (0,0,3) in units of 0.5 m, volume 1/8
    mesh = source("tests/data/meshes_test/tetra.dae")
    with hinge.Simulation(hinge.Scene.load(scene(tmp_path, mesh))) as sim:
        assert sim.t == 0


@pytest.mark.parametrize("name,why", [
    ("hostile_float_array_no_count.dae", "assimp crashed: segmentation fault"),
    ("hostile_no_end_header.ply", "PLY header without an end_header line"),
])
def test_hostile_mesh_raises(tmp_path, name, why):
    mesh = source("tests/data/meshes_test", name)
    with pytest.raises(hinge.Error, match=r"cannot read mesh \(%s" % why):
        hinge.Scene.load(scene(tmp_path, mesh))
