"""Builds the compiled module hinge._hinge with CMake (the source tree one folder up) when pip
or setuptools builds the package: configure with the running interpreter, build the target
_hinge only (and the reader programs it starts: meshes through assimp, MJCF through MuJoCo),
and copy them into the package (as hinge/libexec/hinge/hinge-mesh-reader and
hinge-mjcf-reader, where the module finds them)."""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.join(os.path.abspath(self.build_temp), "cmake")
        os.makedirs(build, exist_ok=True)
        subprocess.check_call(["cmake", "-S", SOURCE, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                               "-DHINGE_TESTS=OFF", "-DHINGE_PYTHON=ON",
                               "-DPython3_EXECUTABLE=" + sys.executable])
        subprocess.check_call(["cmake", "--build", build, "--target", "_hinge", "-j",
                               os.environ.get("HINGE_JOBS", "2")])
        built = os.path.join(build, "python", "hinge", os.path.basename(self.get_ext_filename(ext.name)))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built, dest)
        # the reader programs; hinge-mjcf-reader exists when CMake found MuJoCo's library
        for name in ("hinge-mesh-reader", "hinge-mjcf-reader"):
            reader = os.path.join("libexec", "hinge", name)
            if name == "hinge-mjcf-reader" and not os.path.exists(os.path.join(build, reader)):
                continue
            reader_dest = os.path.join(os.path.dirname(dest), reader)
            os.makedirs(os.path.dirname(reader_dest), exist_ok=True)
            shutil.copy2(os.path.join(build, reader), reader_dest)


setup(ext_modules=[Extension("hinge._hinge", sources=[])], cmdclass={"build_ext": CMakeBuild})
